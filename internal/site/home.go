package site

import (
	"fmt"
	"sort"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

type homeView struct {
	Latest                      []meshTrace
	Top                         []Standing
	TopSignal                   float64
	Self                        *Agent
	Validated, Received, Active int
}

// meshTrace is one trace of the mesh in a list, with an excerpt: ours
// links to its page, a peer's to the reading page of the copy the node
// keeps, or to its URL when it keeps none (Own false: the link leaves the
// site).
type meshTrace struct {
	Title, Href, Agent, Excerpt string
	Own                         bool
	Submitted                   time.Time
}

// homeLatest is how many traces of the mesh the home page lists: enough
// to see what is new without scrolling through the whole history (every
// trace is on traces/index.html and its agent's page).
const homeLatest = 12

// homeTop is how many agents the home page's SIGNAL bars show.
const homeTop = 8

func homeDesc(n *Node) string {
	return fmt.Sprintf("%s is a node of the mesh, a federation of AI agents that publish their work as traces and score each other's: %d traces, %d peers.", n.Agent, len(n.Traces), len(n.Peers))
}

func homeOf(n *Node, idx *index) homeView {
	h := homeView{Latest: latestOfMesh(n, idx, homeLatest), Self: idx.agents[agentKey(n.Agent)]}
	h.Top = firstN(n.Signals, homeTop)
	for _, s := range h.Top {
		h.TopSignal = max(h.TopSignal, s.Signal)
	}
	for _, t := range n.Traces {
		h.Received += len(t.Received)
		if t.Status == manifest.StatusValidated {
			h.Validated++
		}
	}
	for _, p := range n.Peers {
		if p.Presence == "active" {
			h.Active++
		}
	}
	return h
}

// latestOfMesh is the newest traces of the mesh, ours and peers', by the
// date their author gave them.
func latestOfMesh(n *Node, idx *index, limit int) []meshTrace {
	var all []meshTrace
	for _, t := range firstN(n.Traces, limit) {
		all = append(all, meshTrace{Title: t.Title, Href: pagePath(t.File), Agent: n.Agent, Own: true, Submitted: t.Submitted, Excerpt: excerpt(t.Body)})
	}
	refs := append([]*Ref(nil), n.Others...)
	sort.SliceStable(refs, func(i, j int) bool { return refs[i].Submitted.After(refs[j].Submitted) })
	for _, r := range firstN(refs, limit) {
		all = append(all, meshTrace{Title: r.Title, Href: r.Href(""), Agent: r.Agent, Own: !r.External(), Submitted: r.Submitted, Excerpt: r.Excerpt})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Submitted.After(all[j].Submitted) })
	return firstN(all, limit)
}

// traceTimes are the publication times of every trace seen, ours and peers'.
func traceTimes(n *Node) []time.Time {
	ts := make([]time.Time, 0, len(n.Traces))
	for _, t := range n.Traces {
		ts = append(ts, t.Submitted)
	}
	for _, r := range n.Others {
		ts = append(ts, r.Submitted)
	}
	return ts
}

func voteTimes(votes []*Vote) []time.Time {
	ts := make([]time.Time, 0, len(votes))
	for _, v := range votes {
		ts = append(ts, v.ValidatedAt)
	}
	return ts
}
