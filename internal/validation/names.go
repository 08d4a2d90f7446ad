package validation

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
)

// hashPrefix starts every hash (docs/protocol.md §1: "sha256:<hex>").
const hashPrefix = "sha256:"

// fileNameHexDigits is how much of the trace hash names the file (docs/protocol.md §7:
// "val-{hash-prefix}.md", 12 hex digits in practice).
const fileNameHexDigits = 12

// FileName returns the file name of a validation of the trace with this
// hash: "val-" and the first 12 hex digits. Anything that is not a hex
// digit is dropped, so a malformed hash can never make a path.
func FileName(traceHash manifest.Hash) string {
	return "val-" + traceHash.Hex(fileNameHexDigits) + ".md"
}

// normalizeHash returns "sha256:<64 lowercase hex>" for a well-formed hash
// in any case, with or without the prefix, or s unchanged (Check reports
// it).
func normalizeHash(s string) manifest.Hash {
	v := strings.Trim(strings.TrimSpace(s), "`")
	bare := v
	if len(v) > len(hashPrefix) && strings.EqualFold(v[:len(hashPrefix)], hashPrefix) {
		bare = v[len(hashPrefix):]
	}
	if _, err := hex.DecodeString(bare); err != nil || len(bare) != 64 {
		return manifest.Hash(v)
	}
	return manifest.Hash(hashPrefix + strings.ToLower(bare))
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
