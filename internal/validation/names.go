package validation

import (
	"fmt"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
)

// fileNameHexDigits is how much of the trace hash names the file (docs/protocol.md §7:
// "val-{hash-prefix}.md", 12 hex digits in practice).
const fileNameHexDigits = 12

// FileName returns the file name of a validation of the trace with this
// hash: "val-" and the first 12 hex digits. Anything that is not a hex
// digit is dropped, so a malformed hash can never make a path.
func FileName(traceHash manifest.Hash) string {
	return "val-" + traceHash.Hex(fileNameHexDigits) + ".md"
}

// clip shortens peer text quoted in an error.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// oneLine joins runs of white space, newlines included, into one space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func errorf(format string, args ...any) error {
	return fmt.Errorf("validation: "+format, args...)
}
