package translog

import (
	"fmt"
	"github.com/meshnode/meshnode/internal/cputime"
	"testing"
)

// BenchmarkUpdateOneNewEntry is what a heartbeat that published one file
// pays for its log: read back and verify the published log of n entries,
// extend it by one, and sign. Run with
// go test ./internal/translog -run '^$' -bench UpdateOneNewEntry -count 5
func BenchmarkUpdateOneNewEntry(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			entries := entriesN(n + 1)
			old, err := Update(nil, entries[:n], testSKey)
			if err != nil {
				b.Fatal(err)
			}
			cputime.Loop(b, func() {
				if _, err := Update(old, entries, testSKey); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
