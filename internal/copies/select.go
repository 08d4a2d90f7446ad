package copies

import (
	"cmp"
	"container/heap"
	"slices"
	"strings"
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
// learned nothing keeps the same copies. It sorts only an agent holding
// more than perAgent and keeps the max newest in a heap, rather than sort
// every trace of the history twice, as it did: a heartbeat with news
// after a year of 10,000 agents selected among 200,000.
//
// A bound of zero or less keeps nothing.
func Select(cands []Candidate, perAgent, max int) map[manifest.Hash]bool {
	if perAgent <= 0 || max <= 0 {
		return map[manifest.Hash]bool{}
	}
	count := map[string]int{}
	for _, c := range cands {
		count[c.AgentURL]++
	}
	kept := &oldestFirst{}
	over := map[string][]Candidate{} // the agents that hold more than perAgent
	for _, c := range cands {
		if count[c.AgentURL] > perAgent {
			over[c.AgentURL] = append(over[c.AgentURL], c)
		} else {
			kept.offer(c, max)
		}
	}
	for _, cs := range over {
		slices.SortFunc(cs, bySeqThenHash)
		for _, c := range cs[:perAgent] {
			kept.offer(c, max)
		}
	}
	out := make(map[manifest.Hash]bool, len(*kept))
	for _, c := range *kept {
		out[c.Hash] = true
	}
	return out
}

// bySeqThenHash orders one agent's candidates newest first: by seq
// descending, then hash.
func bySeqThenHash(a, b Candidate) int {
	if a.Seq != b.Seq {
		return cmp.Compare(b.Seq, a.Seq)
	}
	return strings.Compare(string(a.Hash), string(b.Hash))
}

// oldestFirst is a heap of candidates whose root is the oldest (Newer).
type oldestFirst []Candidate

func (h oldestFirst) Len() int           { return len(h) }
func (h oldestFirst) Less(i, j int) bool { return h[j].Newer(h[i]) }
func (h oldestFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }

// Push and Pop are heap.Interface's.
func (h *oldestFirst) Push(x any) { *h = append(*h, x.(Candidate)) }

// Pop is heap.Interface's.
func (h *oldestFirst) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// offer keeps c if it is among the max newest offered so far, and
// returns the candidate it lets go of, if any: c, or the oldest kept.
func (h *oldestFirst) offer(c Candidate, max int) (Candidate, bool) {
	switch {
	case max <= 0:
		return c, true
	case len(*h) < max:
		heap.Push(h, c)
		return Candidate{}, false
	case c.Newer((*h)[0]):
		out := (*h)[0]
		(*h)[0] = c
		heap.Fix(h, 0)
		return out, true
	}
	return c, true
}

// Selection is Select taken one agent at a time, for a caller that learns
// the candidates as it goes and wants to hold only what may be kept: once
// every agent's candidates are offered, Kept is what Select of all of
// them returns, and every other candidate was let go of by an Offer.
type Selection struct {
	perAgent, max int
	kept          oldestFirst
}

// NewSelection starts a selection under Select's bounds.
func NewSelection(perAgent, max int) *Selection {
	return &Selection{perAgent: perAgent, max: max}
}

// Offer adds every candidate of one agent, and returns those the
// selection lets go of: its own beyond perAgent, and those that newer
// ones push out of the max kept, its own or those offered before. An
// agent offered twice counts as two: each offer keeps perAgent of it.
func (s *Selection) Offer(agent []Candidate) []Candidate {
	if s.perAgent <= 0 || s.max <= 0 {
		return agent
	}
	var out []Candidate
	if len(agent) > s.perAgent {
		agent = slices.Clone(agent)
		slices.SortFunc(agent, bySeqThenHash)
		out = append(out, agent[s.perAgent:]...)
		agent = agent[:s.perAgent]
	}
	for _, c := range agent {
		if d, ok := s.kept.offer(c, s.max); ok {
			out = append(out, d)
		}
	}
	return out
}

// MayKeep reports whether an Offer of c could keep it: false when the
// selection keeps max candidates already and c is not newer than the
// oldest of them, which only newer ones ever replace. A caller can then
// spare taking what it would offer.
func (s *Selection) MayKeep(c Candidate) bool {
	return s.perAgent > 0 && s.max > 0 && (len(s.kept) < s.max || c.Newer(s.kept[0]))
}

// Kept is the hashes of the candidates the selection keeps.
func (s *Selection) Kept() map[manifest.Hash]bool {
	out := make(map[manifest.Hash]bool, len(s.kept))
	for _, c := range s.kept {
		out[c.Hash] = true
	}
	return out
}
