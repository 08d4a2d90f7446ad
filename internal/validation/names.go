package validation

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/meshnode/meshnode/internal/manifest"
)

// fileNameHexDigits is how much of the trace hash names the file (docs/protocol.md §7:
// "val-{hash-prefix}.md", 12 hex digits in practice).
const fileNameHexDigits = 12

// ID returns the ID of the trace with this hash: its first 12 hex
// digits, lower case. It names the trace's validation file (FileName) and
// its item in the node's validation queue, so the rule lives here alone.
// Anything that is not a hex digit is dropped, so a malformed hash can
// never make a path.
func ID(traceHash manifest.Hash) string {
	return traceHash.Hex(fileNameHexDigits)
}

// FileName returns the file name of a validation of the trace with this
// hash: "val-", its ID and ".md".
func FileName(traceHash manifest.Hash) string {
	return "val-" + ID(traceHash) + ".md"
}

// clip shortens peer text quoted in an error.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// oneLine joins runs of white space, newlines included, into one space,
// and trims it from both ends. Text that already is one line comes back
// as it is, without the allocations of splitting it: most values a
// validation holds are.
func oneLine(s string) string {
	if isOneLine(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// isOneLine reports whether oneLine would return s as it is: no white
// space at either end, and none inside but single spaces.
func isOneLine(s string) bool {
	space := true // so that a leading space is caught
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				return false
			}
			i += size - 1
			space = false
		case c == ' ':
			if space {
				return false
			}
			space = true
		case '\t' <= c && c <= '\r': // the rest of ASCII's white space
			return false
		default:
			space = false
		}
	}
	return !space || s == ""
}

func errorf(format string, args ...any) error {
	return fmt.Errorf("validation: "+format, args...)
}
