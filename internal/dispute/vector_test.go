package dispute

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// numberedVector is the conformance case whose disputes are published
// under the three name forms of docs/protocol.md §2 (conformance/README.md).
const numberedVector = "../../conformance/dispute-numbered/public"

// TestConformanceVectorNamesDisputesAsFileNameAtDoes keeps the
// dispute-numbered vector honest: each reporter's disputes of one claimed
// prefix are named, in the order of the disputed rows' seqs, by FileNameAt 0, 1
// and 2, so the vector shows the numbered name this node publishes and
// cmd/meshnode's TestConformanceVectors reads it as a dispute.
func TestConformanceVectorNamesDisputesAsFileNameAtDoes(t *testing.T) {
	for _, reporter := range []string{"ann", "bob"} {
		dir := filepath.Join(numberedVector, reporter, "disputes")
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			d, err := Parse(data)
			if err != nil {
				t.Fatalf("%s: %v", e.Name(), err)
			}
			got = append(got, e.Name())
			want = append(want, FileNameAt(d.ClaimedHash, d.AgentURL, int(d.Seq)-1))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s's disputes are named %q; FileNameAt names them %q", reporter, got, want)
		}
		if !slices.Contains(got, "dispute-5ca1ab1e5eed-3.md") {
			t.Errorf("%s publishes no numbered name: %q", reporter, got)
		}
	}
}
