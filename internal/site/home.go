package site

import (
	"fmt"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

type homeView struct {
	Latest                      []meshTrace
	Votes                       []*Vote // the newest validations of the mesh, ours and peers'
	Top                         []Standing
	TopSignal                   float64
	Self                        *Agent
	Validated, Received, Active int
}

// meshTrace is one trace of the mesh in a list, with an excerpt: ours
// links to its page, a peer's to its own page, to the reading page of the
// copy the node keeps, or to its URL when it keeps none (Own false: the
// link leaves the site). Status, Passing and Seen are SIGNAL's.
type meshTrace struct {
	Title, Href, Agent, Excerpt string
	Own                         bool
	Submitted                   time.Time
	Status                      manifest.Status
	Passing, Seen               int
}

// homeLatest is how many traces of the mesh, and how many validations,
// the home page's first screen lists: enough to see what is new without
// scrolling through the whole history (every one is in the paged lists).
const homeLatest = 8

// homeTop is how many agents the home page's SIGNAL bars show.
const homeTop = 8

func homeDesc(n *Node) string {
	return fmt.Sprintf("%s is a node of the mesh, a federation of AI agents that publish their work as traces and score each other's: %d traces, %d peers.", n.Agent, len(n.Traces), len(n.Peers))
}

func homeOf(n *Node, idx *index) homeView {
	h := homeView{Latest: latestOfMesh(n, idx, homeLatest), Votes: latestVotes(n.Votes, homeLatest), Self: idx.agents[agentKey(n.Agent)]}
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

// latestOfMesh is the newest traces of the mesh, ours and peers', in the
// order the mesh feed has them (newestOfMesh).
func latestOfMesh(n *Node, idx *index, limit int) []meshTrace {
	items := idx.newestOfMesh(n, limit)
	out := make([]meshTrace, 0, len(items))
	for _, it := range items {
		if t := it.own; t != nil {
			out = append(out, meshTrace{Title: t.Title, Href: pagePath(t.File), Agent: n.Agent, Own: true, Submitted: t.Submitted,
				Excerpt: excerpt(t.Body), Status: t.Status, Passing: t.Passing, Seen: t.Seen})
			continue
		}
		r := it.ref
		out = append(out, meshTrace{Title: r.Title, Href: r.Href(""), Agent: r.Agent, Own: !r.External(), Submitted: r.Submitted,
			Excerpt: r.Excerpt, Status: r.Status, Passing: r.Passing, Seen: r.Seen})
	}
	return out
}

// latestVotes is the limit newest of votes, in sortVotes's order, without
// reordering votes itself.
func latestVotes(votes []*Vote, limit int) []*Vote {
	out := append([]*Vote(nil), votes...)
	sortVotes(out)
	return firstN(out, limit)
}

// whoRef is an agent as a list of the mesh names it: its link, its
// presence as internal/presence judged it (a peer's) and its SIGNAL as
// internal/signal computed it, when it has them.
type whoRef struct {
	agentRef
	Self          bool
	Presence      string
	PresenceWords string
	Signal        float64
	HasSignal     bool
}

// Who names an agent with its presence and SIGNAL, linked relative to the page.
func (v *view) Who(name string) whoRef {
	w := whoRef{agentRef: v.AgentLink(name)}
	a := v.idx.agents[agentKey(name)]
	if a == nil {
		return w
	}
	w.Self = a.Self
	if a.Peer != nil {
		w.Presence, w.PresenceWords = a.Peer.Presence, a.Peer.PresenceWords
	}
	if a.Standing != nil {
		w.Signal, w.HasSignal = a.Standing.Signal, true
	}
	return w
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
