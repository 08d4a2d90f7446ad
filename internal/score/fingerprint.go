package score

import (
	"hash/fnv"
	"math/bits"
	"strings"
	"unicode"
)

// shingleWords is the number of consecutive words hashed together: three
// words keep word order in the fingerprint without making one edited word
// change too many shingles.
const shingleWords = 3

// Fingerprint returns a 64-bit simhash of the body's word shingles:
// bodies that share most of their text have fingerprints a small Hamming
// distance apart. Case, punctuation and markdown markup are ignored.
func Fingerprint(body []byte) uint64 {
	words := strings.FieldsFunc(strings.ToLower(string(body)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(words) == 0 {
		return 0
	}
	var weights [64]int
	n := len(words) - shingleWords + 1
	if n < 1 {
		n = 1
	}
	for i := 0; i < n; i++ {
		end := min(i+shingleWords, len(words))
		h := fnv.New64a()
		h.Write([]byte(strings.Join(words[i:end], " ")))
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

// Distance is the Hamming distance between two fingerprints: 0 for the
// same text, around 32 for unrelated texts.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }
