package signal

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// TestSortStringsOrdersAsStrings: keys sharing prefixes of every length
// (none, "sha256:", a validator's URL, longer than the windows compared),
// prefixes of one another, NUL bytes and empty strings sort as
// slices.Sort sorts them.
func TestSortStringsOrdersAsStrings(t *testing.T) {
	long := strings.Repeat("p", 100)
	cases := map[string][]string{
		"empty":    {},
		"one":      {"a"},
		"prefixes": {"abc", "ab", "", "abcdefghij", "abcdefgh", "abcdefg", "abcdefgh\x00", "abcdefgh\x00\x00", "a\x00", "a"},
		"nul":      {"\x00", "", "\x00\x00", "\x00\x01", "\x01"},
		"long":     {long + "b", long, long + "a", long + "a\x00", "p", long[:64], long[:63] + "q"},
		"hashes":   randomKeys(rand.New(rand.NewSource(1)), 2000, "sha256:"),
		"urls":     randomKeys(rand.New(rand.NewSource(2)), 2000, "https://agent"),
	}
	for name, ks := range cases {
		t.Run(name, func(t *testing.T) {
			got, want := slices.Clone(ks), slices.Clone(ks)
			sortStrings(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("sortStrings(%q) = %q, want %q", ks, got, want)
			}
		})
	}
}

// randomKeys is n keys starting with prefix, many sharing longer
// prefixes, as a ledger's validation keys do (a URL, then a hash).
func randomKeys(rng *rand.Rand, n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d.example/ sha256:%x", prefix, rng.Intn(n/20+1), rng.Int63n(1<<(4*rng.Intn(16)+1)))
	}
	return out
}

// FuzzSortStrings: any strings sort as slices.Sort sorts them.
func FuzzSortStrings(f *testing.F) {
	f.Add("sha256:ab\nsha256:a\nsha256:abcdefghijk\n\nsha256:abcdefghijj", 7)
	f.Add("https://a.example/ sha256:1\nhttps://a.example/ sha256:0\nhttps://b.example/", 0)
	f.Add("a\x00\na\na\x00\x00", 3)
	f.Fuzz(func(t *testing.T, joined string, repeat int) {
		ks := strings.Split(joined, "\n")
		if repeat := repeat % 80; repeat > 0 {
			for i := range ks { // a prefix longer than the windows compared
				ks[i] = strings.Repeat("x", repeat) + ks[i]
			}
		}
		got, want := slices.Clone(ks), slices.Clone(ks)
		sortStrings(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("sortStrings(%q) = %q, want %q", ks, got, want)
		}
	})
}
