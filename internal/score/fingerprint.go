package score

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/trace"
)

// shingleWords is the number of consecutive words hashed together: three
// words keep word order in the fingerprint without making one edited word
// change too many shingles.
const shingleWords = 3

// Fingerprint returns a 64-bit simhash of the body's word shingles:
// bodies that share most of their text have fingerprints a small Hamming
// distance apart. Case, punctuation and markdown markup are ignored.
//
// Each shingle is its words joined by single spaces, hashed with 64-bit
// FNV-1a; the ledger stores fingerprints, so that definition must never
// change. The hash is computed in place, without joining the words, and
// the bits are counted rather than branched on: the heartbeat
// fingerprints every trace it fetches, and this was half of a catch-up.
func Fingerprint(body []byte) trace.Fingerprint {
	// The shingles are hashed as the words come, from the last
	// shingleWords of them, rather than from a slice of every word: that
	// slice took three times the body's bytes, 146 MB of garbage in a
	// catch-up of 20,000 traces.
	var c bitCounter
	var last [shingleWords]string
	words := 0
	eachWord(strings.ToLower(string(body)), func(w string) {
		if words < shingleWords {
			last[words] = w
		} else {
			copy(last[:], last[1:])
			last[shingleWords-1] = w
		}
		if words++; words >= shingleWords {
			c.add(shingleHash(last[:]))
		}
	})
	if words == 0 {
		return 0
	}
	if words < shingleWords {
		c.add(shingleHash(last[:words]))
	}
	n := max(words-shingleWords+1, 1)
	ones := c.total()
	var fp uint64
	for b, k := range ones {
		if 2*k > n { // more shingles set the bit than leave it clear
			fp |= 1 << b
		}
	}
	return trace.Fingerprint(fp)
}

// eachWord calls f with each run of letters and digits of s in order, as
// strings.FieldsFunc with a not-letter-nor-digit separator splits it,
// with a fast path for ASCII.
func eachWord(s string, f func(string)) {
	start := -1
	for i := 0; i < len(s); {
		c, size := rune(s[i]), 1
		word := 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z'
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRuneInString(s[i:])
			word = unicode.IsLetter(c) || unicode.IsDigit(c)
		}
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			f(s[start:i])
			start = -1
		}
		i += size
	}
	if start >= 0 {
		f(s[start:])
	}
}

// bitCounter counts, for each of 64 bit positions, how many added values
// had the bit set. It adds one byte of a value at a time, eight counters
// to a word (spread), and moves the counts out before a byte can overflow.
type bitCounter struct {
	lanes [8]uint64 // lanes[k] byte j counts bit 8k+j since the last flush
	added int       // values added since the last flush
	ones  [64]int
}

// spread[x] holds bit j of x in its byte j.
var spread = func() (t [256]uint64) {
	for x := range t {
		for j := 0; j < 8; j++ {
			t[x] |= uint64(x>>j&1) << (8 * j)
		}
	}
	return t
}()

func (c *bitCounter) add(v uint64) {
	for k := range c.lanes {
		c.lanes[k] += spread[byte(v>>(8*k))]
	}
	if c.added++; c.added == 255 {
		c.flush()
	}
}

func (c *bitCounter) flush() {
	for k, lane := range c.lanes {
		for j := 0; j < 8; j++ {
			c.ones[8*k+j] += int(lane >> (8 * j) & 0xff)
		}
	}
	c.lanes, c.added = [8]uint64{}, 0
}

func (c *bitCounter) total() [64]int {
	c.flush()
	return c.ones
}

// FNV-1a, 64 bits (hash/fnv's New64a).
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// shingleHash is FNV-1a of the words joined by single spaces.
func shingleHash(words []string) uint64 {
	h := uint64(fnvOffset64)
	for i, w := range words {
		if i > 0 {
			h ^= ' '
			h *= fnvPrime64
		}
		for j := 0; j < len(w); j++ {
			h ^= uint64(w[j])
			h *= fnvPrime64
		}
	}
	return h
}

// Distance is the Hamming distance between two fingerprints: 0 for the
// same text, around 32 for unrelated texts.
func Distance(a, b trace.Fingerprint) int { return bits.OnesCount64(uint64(a ^ b)) }

// KnownOf lists the fingerprints the ledger holds, in its order, for the
// uniqueness dimension: the traces this node has seen.
func KnownOf(l *ledger.Ledger) []Known {
	out := make([]Known, 0, len(l.Traces))
	for _, t := range l.SortedTraces() {
		if t.Fingerprint != 0 {
			out = append(out, Known{Hash: t.Hash, Agent: t.Agent, Fingerprint: t.Fingerprint})
		}
	}
	return out
}
