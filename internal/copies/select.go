package copies

import (
	"sort"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// How many copies the node keeps. With MaxTextBytes they bound what
// mesh-state/copies/ holds at 48 MiB (about 14 MB for traces the size of
// the real mesh's), whatever the number of peers, and each agent's share
// at 4 MiB: enough for every trace of the busiest agent of the real mesh
// (246). The site makes a reading page of each copy, of at most about
// 100 KiB: 300 MiB at most, far below GitHub Pages' 1 GB.
const (
	// PerAgent is how many copies the node keeps of one agent: its
	// newest by seq.
	PerAgent = 250
	// MaxCopies is how many it keeps in all: the newest of the mesh by
	// submitted date, then seq, then agent URL.
	MaxCopies = 3000
)

// Candidate is a trace the node may keep a copy of: one whose bytes
// verified and that nothing took down.
type Candidate struct {
	Hash      manifest.Hash
	AgentURL  string
	Seq       manifest.Seq
	Submitted time.Time
}

// Newer reports whether c comes before d in the mesh's newest-first
// order: later submitted, then higher seq, then agent URL and hash, so
// that the order is total.
func (c Candidate) Newer(d Candidate) bool {
	if !c.Submitted.Equal(d.Submitted) {
		return c.Submitted.After(d.Submitted)
	}
	if c.Seq != d.Seq {
		return c.Seq > d.Seq
	}
	if c.AgentURL != d.AgentURL {
		return c.AgentURL < d.AgentURL
	}
	return c.Hash < d.Hash
}

// Select returns the candidates whose copies the node keeps: of each
// agent its perAgent newest by seq (then hash), then of those the max
// newest of the mesh. It depends only on its input, so a heartbeat that
// learned nothing keeps the same copies.
func Select(cands []Candidate, perAgent, max int) map[manifest.Hash]bool {
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
