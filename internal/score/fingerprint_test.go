package score

import (
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// referenceFingerprint is the definition of Fingerprint, written plainly:
// fingerprints are stored in ledgers, so the fast one must match it bit
// for bit.
func referenceFingerprint(body []byte) uint64 {
	words := strings.FieldsFunc(strings.ToLower(string(body)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(words) == 0 {
		return 0
	}
	var weights [64]int
	n := max(len(words)-shingleWords+1, 1)
	for i := 0; i < n; i++ {
		h := fnv.New64a()
		h.Write([]byte(strings.Join(words[i:min(i+shingleWords, len(words))], " ")))
		v := h.Sum64()
		for b := 0; b < 64; b++ {
			if v&(1<<b) != 0 {
				weights[b]++
			} else {
				weights[b]--
			}
		}
	}
	var fp uint64
	for b, w := range weights {
		if w > 0 {
			fp |= 1 << b
		}
	}
	return fp
}

func FuzzFingerprintMatchesItsDefinition(f *testing.F) {
	for _, s := range []string{"", "one", "one two", "one two three", "Ünïcode wörds, and 42 numbers!", "a a a a b b b b", strings.Repeat("many shingles beyond one flush of the counter ", 200)} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.md"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if got, want := uint64(Fingerprint(body)), referenceFingerprint(body); got != want {
			t.Errorf("Fingerprint = %016x, its definition gives %016x", got, want)
		}
	})
}

func BenchmarkFingerprint(b *testing.B) {
	body := []byte(strings.Repeat("The heartbeat polls every peer, verifies each sha256 and scores what is new. ", 60))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		Fingerprint(body)
	}
}
