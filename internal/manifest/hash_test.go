package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// referenceValid and referenceHashAsWritten are Valid and HashAsWritten
// as they were before they skipped decoding well-formed hashes.
func referenceValid(h Hash) bool {
	bare, ok := strings.CutPrefix(string(h), hashPrefix)
	if !ok || len(bare) != sha256.Size*2 || strings.ToLower(bare) != bare {
		return false
	}
	_, err := hex.DecodeString(bare)
	return err == nil
}

func referenceHashAsWritten(s string) Hash {
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

const hexHash = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"

// FuzzHashAsWritten checks that Valid and HashAsWritten answer for every
// string as they did before they skipped decoding well-formed hashes.
func FuzzHashAsWritten(f *testing.F) {
	for _, s := range []string{"", hashPrefix + hexHash, "SHA256:" + strings.ToUpper(hexHash), hexHash,
		"`" + hashPrefix + hexHash + "`", " " + hashPrefix + hexHash + "\n", hashPrefix + hexHash[:63],
		hashPrefix + hexHash + "0", hashPrefix + hexHash[:63] + "g", hashPrefix + hexHash[:63] + "F",
		"sha256-" + hexHash, hashPrefix + strings.Repeat("é", 32), "not a hash"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Hash(s).Valid(), referenceValid(Hash(s)); got != want {
			t.Errorf("Hash(%q).Valid() = %v, want %v", s, got, want)
		}
		if got, want := HashAsWritten(s), referenceHashAsWritten(s); got != want {
			t.Errorf("HashAsWritten(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestHashAsWrittenKeepsAWellFormedHashWithoutAllocating checks that a
// hash as the node writes it is neither decoded nor rebuilt: a heartbeat
// reads one in each of its 55,000 validations after three years.
func TestHashAsWrittenKeepsAWellFormedHashWithoutAllocating(t *testing.T) {
	s := hashPrefix + hexHash
	var h Hash
	allocs := testing.AllocsPerRun(100, func() { h = HashAsWritten(s) })
	if string(h) != s || allocs != 0 {
		t.Errorf("HashAsWritten(%q) = %q in %v allocations, want it as it is in none", s, h, allocs)
	}
}
