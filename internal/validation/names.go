package validation

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// hashPrefix starts every hash (docs/protocol.md §1: "sha256:<hex>").
const hashPrefix = "sha256:"

// fileNameHexDigits is how much of the trace hash names the file (docs/protocol.md §7:
// "val-{hash-prefix}.md", 12 hex digits in practice).
const fileNameHexDigits = 12

// FileName returns the file name of a validation of the trace with this
// hash: "val-" and the first 12 hex digits. Anything that is not a hex
// digit is dropped, so a malformed hash can never make a path.
func FileName(traceHash string) string {
	return "val-" + hexPrefix(traceHash, fileNameHexDigits) + ".md"
}

func hexPrefix(hash string, n int) string {
	h := strings.ToLower(strings.TrimSpace(hash))
	h = strings.TrimPrefix(h, hashPrefix)
	var b strings.Builder
	for i := 0; i < len(h) && b.Len() < n; i++ {
		if c := h[i]; c >= '0' && c <= '9' || c >= 'a' && c <= 'f' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// normalizeHash returns "sha256:<64 lowercase hex>" for a well-formed hash
// in any case, with or without the prefix, or s unchanged (Check reports
// it).
func normalizeHash(s string) string {
	v := strings.Trim(strings.TrimSpace(s), "`")
	bare := v
	if len(v) > len(hashPrefix) && strings.EqualFold(v[:len(hashPrefix)], hashPrefix) {
		bare = v[len(hashPrefix):]
	}
	if _, err := hex.DecodeString(bare); err != nil || len(bare) != 64 {
		return v
	}
	return hashPrefix + strings.ToLower(bare)
}

// WellFormedHash reports whether s is exactly "sha256:<64 lowercase hex>",
// the form of every trace_hash the node writes.
func WellFormedHash(s string) bool {
	bare, ok := strings.CutPrefix(s, hashPrefix)
	if !ok || len(bare) != 64 || strings.ToLower(bare) != bare {
		return false
	}
	_, err := hex.DecodeString(bare)
	return err == nil
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
