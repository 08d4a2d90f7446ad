package signal

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
)

// sortedKeys is m's keys in ascending order. A heartbeat gathers the
// ledger's hundreds of thousands of traces and validations by key
// (peerTraces, peerValidations), whose keys share long prefixes
// ("sha256:", a validator's URL): sortStrings sorts them without
// comparing whole strings.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

// windowed is a string and windowBytes of its bytes, big-endian (window).
type windowed[K ~string] struct {
	hi, lo uint64
	s      K
}

// windowBytes is how many bytes of a string a window holds: a hash's
// "sha256:" and the 36 bits after it, so that the hashes of a ledger sort
// in one pass over their bytes.
const windowBytes = 16

// maxWindows is how many windows sortWindows compares before it compares
// what is left of a run whole: enough for the keys of a ledger (a
// validator's URL, then a hash), and a bound on its recursion for strings
// that share a longer prefix.
const maxWindows = 6

// sortStrings sorts ks ascending, as slices.Sort does: by their bytes 16
// at a time, held beside each string as integers, so that the sort
// compares integers in one array rather than reading each string from
// wherever it lives at every comparison. Strings sort by their first 16
// bytes, then each run of equal ones by the next 16 (sortWindows): the
// order is the strings' own, the only order of distinct strings.
func sortStrings[K ~string](ks []K) {
	ws := make([]windowed[K], len(ks))
	for i, k := range ks {
		ws[i].s = k
	}
	sortWindows(ws, 0)
	for i := range ws {
		ks[i] = ws[i].s
	}
}

// sortWindows sorts ws, whose strings are equal in their first at bytes
// (as padded by window), by their bytes from at on.
func sortWindows[K ~string](ws []windowed[K], at int) {
	if len(ws) < 2 {
		return
	}
	if at >= maxWindows*windowBytes || shorterThan(ws, at+windowBytes) {
		// Strings that end within the window differ at most after it, or
		// in their length: compared whole.
		slices.SortFunc(ws, func(a, b windowed[K]) int { return strings.Compare(string(a.s), string(b.s)) })
		return
	}
	for i := range ws {
		ws[i].hi, ws[i].lo = window(string(ws[i].s), at), window(string(ws[i].s), at+8)
	}
	slices.SortFunc(ws, func(a, b windowed[K]) int {
		if c := cmp.Compare(a.hi, b.hi); c != 0 {
			return c
		}
		return cmp.Compare(a.lo, b.lo)
	})
	for i := 0; i < len(ws); {
		j := i + 1
		for j < len(ws) && ws[j].hi == ws[i].hi && ws[j].lo == ws[i].lo {
			j++
		}
		sortWindows(ws[i:j], at+windowBytes)
		i = j
	}
}

// shorterThan reports whether every string of ws is at most n bytes long.
func shorterThan[K ~string](ws []windowed[K], n int) bool {
	for _, w := range ws {
		if len(w.s) > n {
			return false
		}
	}
	return true
}

// window is s's 8 bytes from at, big-endian, the bytes past its end 0: two
// strings equal before at compare as their windows do, unless the windows
// are equal.
func window(s string, at int) uint64 {
	if at+8 <= len(s) {
		return binary.BigEndian.Uint64([]byte(s[at : at+8]))
	}
	var w uint64
	for i := at; i < at+8; i++ {
		w <<= 8
		if i < len(s) {
			w |= uint64(s[i])
		}
	}
	return w
}
