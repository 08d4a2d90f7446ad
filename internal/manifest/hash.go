package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// hashPrefix starts every hash this module writes (docs/protocol.md §3:
// "sha256:<hex>").
const hashPrefix = "sha256:"

// HashBytes returns the identity of a file: "sha256:" and the lowercase hex
// of the sha256 of its exact bytes.
func HashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hashPrefix + hex.EncodeToString(sum[:])
}

// NormalizeHash returns s as "sha256:<64 lowercase hex>". It accepts the
// prefix in any case, with "-" instead of ":", or no prefix at all, and
// surrounding backticks; anything else, a truncated hash included, is an
// error.
func NormalizeHash(s string) (string, error) {
	v := strings.Trim(strings.TrimSpace(s), "`")
	if len(v) > len(hashPrefix) && strings.EqualFold(v[:len("sha256")], "sha256") &&
		(v[len("sha256")] == ':' || v[len("sha256")] == '-') {
		v = v[len(hashPrefix):]
	}
	if len(v) != sha256.Size*2 {
		return "", fmt.Errorf("hash %q: want sha256:<64 hex digits>", clip(s))
	}
	if _, err := hex.DecodeString(v); err != nil {
		return "", fmt.Errorf("hash %q: not hex", clip(s))
	}
	return hashPrefix + strings.ToLower(v), nil
}

// clip shortens peer text quoted in an error so a hostile line cannot
// flood a log.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

func toLowerTrim(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}
