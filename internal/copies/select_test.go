package copies

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// sortedSelect is Select as it was, sorting every candidate twice: the
// definition the heap and the per-agent sort must keep to.
func sortedSelect(cands []Candidate, perAgent, max int) map[manifest.Hash]bool {
	sorted := append([]Candidate(nil), cands...)
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.AgentURL != b.AgentURL {
			return a.AgentURL < b.AgentURL
		}
		if a.Seq != b.Seq {
			return a.Seq > b.Seq
		}
		return a.Hash < b.Hash
	})
	var kept []Candidate
	n := 0
	for i, c := range sorted {
		if i > 0 && c.AgentURL != sorted[i-1].AgentURL {
			n = 0
		}
		if n < perAgent {
			kept = append(kept, c)
		}
		n++
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].Newer(kept[j]) })
	out := make(map[manifest.Hash]bool, min(len(kept), max))
	for _, c := range kept[:min(len(kept), max)] {
		out[c.Hash] = true
	}
	return out
}

// randomCandidates is n candidates of a few agents, with the ties Newer
// breaks: many share a day, a seq, or both.
func randomCandidates(r *rand.Rand, n int) []Candidate {
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]Candidate, n)
	for i := range out {
		out[i] = Candidate{
			Hash:      manifest.HashBytes(fmt.Appendf(nil, "%d", i)),
			AgentURL:  fmt.Sprintf("https://a%d.example/", r.IntN(5)),
			Seq:       manifest.Seq(r.IntN(30)),
			Submitted: day.AddDate(0, 0, r.IntN(10)),
		}
	}
	return out
}

func TestSelectKeepsWhatSortingEveryCandidateKept(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		cands := randomCandidates(r, r.IntN(120))
		perAgent, max := r.IntN(12), r.IntN(40)
		got, want := Select(cands, perAgent, max), sortedSelect(cands, perAgent, max)
		if !maps.Equal(got, want) {
			t.Fatalf("case %d (%d candidates, perAgent %d, max %d): Select kept %d, sorting every candidate %d", i, len(cands), perAgent, max, len(got), len(want))
		}
	}
}

func TestSelectionKeepsWhatSelectKeepsAndLetsGoOfTheRest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		cands := randomCandidates(r, r.IntN(120))
		perAgent, max := r.IntN(12), r.IntN(40)
		byAgent := map[string][]Candidate{}
		for _, c := range cands {
			byAgent[c.AgentURL] = append(byAgent[c.AgentURL], c)
		}
		agents := slices.Collect(maps.Keys(byAgent))
		r.Shuffle(len(agents), func(i, j int) { agents[i], agents[j] = agents[j], agents[i] })
		s := NewSelection(perAgent, max)
		let := map[manifest.Hash]int{}
		for _, a := range agents {
			for _, c := range s.Offer(byAgent[a]) {
				let[c.Hash]++
			}
		}
		got, want := s.Kept(), Select(cands, perAgent, max)
		if !maps.Equal(got, want) {
			t.Fatalf("case %d (%d candidates, perAgent %d, max %d): Selection kept %d, Select %d", i, len(cands), perAgent, max, len(got), len(want))
		}
		for _, c := range cands {
			if n := let[c.Hash]; want[c.Hash] && n != 0 || !want[c.Hash] && n != 1 {
				t.Fatalf("case %d: %s kept %v, let go of %d times", i, c.Hash, want[c.Hash], n)
			}
		}
	}
}

func TestSelectionMayKeepOnlyWhatAnOfferCouldKeep(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 300 {
		s := NewSelection(1+r.IntN(5), r.IntN(20))
		refused := 0
		for _, c := range randomCandidates(r, r.IntN(80)) {
			may := s.MayKeep(c)
			let := s.Offer([]Candidate{c})
			if !may {
				refused++
				if len(let) != 1 || let[0] != c {
					t.Fatalf("case %d: MayKeep refused %s, but an Offer of it let go of %v", i, c.Hash, let)
				}
			}
		}
		if s.max > 0 && len(s.kept) < s.max && refused > 0 {
			t.Fatalf("case %d: MayKeep refused %d with room left", i, refused)
		}
	}
}

// BenchmarkSelect selects among a year of 10,000 agents' traces (a trace
// every 30 days, daily in the last 8), as a heartbeat with news does:
// Select beside sortedSelect, as it was.
func BenchmarkSelect(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var cands []Candidate
	for a := range 10000 {
		url := fmt.Sprintf("https://agent-%d.example/traces/", a)
		for s := range 20 {
			cands = append(cands, Candidate{Hash: manifest.HashBytes(fmt.Appendf(nil, "%d/%d", a, s)), AgentURL: url,
				Seq: manifest.Seq(s + 1), Submitted: day.AddDate(0, 0, s*18+r.IntN(18))})
		}
	}
	for _, f := range []struct {
		name string
		pick func([]Candidate, int, int) map[manifest.Hash]bool
	}{{"heap", Select}, {"sorted", sortedSelect}} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.pick(cands, PerAgent, MaxCopies)
			}
		})
	}
}

func TestSelectWithABoundOfZeroOrLessKeepsNothing(t *testing.T) {
	cands := []Candidate{{Hash: "sha256:a", AgentURL: "https://a.example/", Seq: 1}, {Hash: "sha256:b", AgentURL: "https://a.example/", Seq: 2}}
	for _, b := range [][2]int{{-1, 5}, {0, 5}, {5, -1}, {5, 0}} {
		if got := Select(cands, b[0], b[1]); len(got) != 0 {
			t.Errorf("Select(perAgent %d, max %d) = %v, want nothing", b[0], b[1], got)
		}
	}
}
