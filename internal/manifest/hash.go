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

// Hash is the identity of a file: "sha256:<64 lowercase hex>" of its exact
// bytes, as MANIFEST.md writes it (docs/protocol.md §3). A Hash read from a
// peer is only well-formed once NormalizeHash or Valid said so.
type Hash string

// HashBytes returns the identity of a file: "sha256:" and the lowercase hex
// of the sha256 of its exact bytes.
func HashBytes(b []byte) Hash {
	sum := sha256.Sum256(b)
	return Hash(hashPrefix + hex.EncodeToString(sum[:]))
}

// Valid reports whether h is exactly "sha256:<64 lowercase hex>", the form
// of every hash the node writes.
func (h Hash) Valid() bool {
	bare, ok := strings.CutPrefix(string(h), hashPrefix)
	if !ok || len(bare) != sha256.Size*2 {
		return false
	}
	// Byte by byte, not by decoding: a node checks every hash it reads,
	// and decoding allocated for each.
	for i := 0; i < len(bare); i++ {
		if c := bare[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Hex returns the first n hex digits of h after its "sha256:" prefix,
// lowercased: enough to tell hashes apart in file names and messages.
// Anything that is not a hex digit is dropped, so a malformed hash read from
// a peer can never make a path.
func (h Hash) Hex(n int) string {
	v := strings.TrimSpace(string(h))
	if len(v) >= len(hashPrefix) && strings.EqualFold(v[:len(hashPrefix)], hashPrefix) {
		v = v[len(hashPrefix):]
	}
	out := make([]byte, 0, n)
	for i := 0; i < len(v) && len(out) < n; i++ {
		c := v[i]
		if c >= 'A' && c <= 'F' {
			c += 'a' - 'A'
		}
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'f' {
			out = append(out, c)
		}
	}
	return string(out)
}

// NormalizeHash returns s as "sha256:<64 lowercase hex>". It accepts the
// prefix in any case, with "-" instead of ":", or no prefix at all, and
// surrounding backticks; anything else, a truncated hash included, is an
// error.
func NormalizeHash(s string) (Hash, error) {
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
	return Hash(hashPrefix + strings.ToLower(v)), nil
}

// HashAsWritten returns s as "sha256:<64 lowercase hex>" when it is a
// sha256 in any case, with or without its "sha256:" prefix or surrounding
// backticks, and otherwise s as written, trimmed: for a parser that keeps
// a malformed value for its checker to report (validations, disputes).
func HashAsWritten(s string) Hash {
	// Most hashes are written as the node writes them; those come back
	// as they are, without the allocations of decoding and rebuilding.
	if h := Hash(s); h.Valid() {
		return h
	}
	v := strings.Trim(strings.TrimSpace(s), "`")
	bare := v
	if len(v) > len(hashPrefix) && strings.EqualFold(v[:len(hashPrefix)], hashPrefix) {
		bare = v[len(hashPrefix):]
	}
	if _, err := hex.DecodeString(bare); err != nil || len(bare) != sha256.Size*2 {
		return Hash(v)
	}
	return Hash(hashPrefix + strings.ToLower(bare))
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
