package site

import (
	"fmt"
	"html/template"
	"sort"
	"strings"
	"time"
)

// output is one file of the site and how to make its bytes.
type output struct {
	Path   string // slash-separated, relative to the site root
	Render func() ([]byte, error)
	Key    string // when set, a key of the inputs: equal keys give equal bytes
	Source string // when set, the node's file this output is a copy of (linked, not copied)
}

// index finds traces by "agent/seq".
type index struct {
	own  map[string]*Trace
	refs map[string]*Ref
}

// citeKey is the canonical "agent/seq" form: "czero/096" and "CZero/96"
// name the same trace.
func citeKey(agent string, seq int) string {
	return strings.ToLower(agent) + "/" + fmt.Sprint(seq)
}

// prepare fills what is derived from the rest of the model (who cites
// whom) and builds the lookup index, in O(traces + citations).
func prepare(n *Node) *index {
	idx := &index{own: map[string]*Trace{}, refs: map[string]*Ref{}}
	for _, r := range n.Others {
		idx.refs[citeKey(r.Agent, r.Seq)] = r
	}
	for _, t := range n.Traces {
		idx.own[citeKey(n.Agent, t.Seq)] = t
		t.CitedBy = nil
	}
	cite := func(from string, cites []string) {
		for _, c := range cites {
			if t, ok := idx.own[c]; ok && c != from {
				t.CitedBy = append(t.CitedBy, from)
			}
		}
	}
	for _, t := range n.Traces {
		cite(citeKey(n.Agent, t.Seq), t.Cites)
	}
	for _, r := range n.Others {
		cite(citeKey(r.Agent, r.Seq), r.Cites)
	}
	for _, t := range n.Traces {
		sort.Strings(t.CitedBy)
	}
	return idx
}

// pageOutputs lists every generated page of the site.
func pageOutputs(n *Node, idx *index) []output {
	base := func(page, title, nav string) *view {
		return &view{Root: rootOf(page), Title: title, Nav: nav, Node: n, idx: idx}
	}
	timelineData := buildTimeline(traceTimes(n), voteTimes(n.Votes))
	outs := []output{
		{Path: "index.html", Render: func() ([]byte, error) {
			v := base("index.html", "Home", "home")
			v.Home, v.Timeline, v.Graph = homeOf(n), timelineData, buildGraph("home", n.Agent, n.Votes)
			return execute("home", v)
		}},
		{Path: "traces/index.html", Key: tracesKey(n), Render: func() ([]byte, error) {
			return execute("traces", base("traces/index.html", "Traces", "home"))
		}},
		{Path: "peers.html", Render: func() ([]byte, error) { return execute("peers", base("peers.html", "Peers", "peers")) }},
		{Path: "validations.html", Render: func() ([]byte, error) {
			return execute("validations", base("validations.html", "Validations given", "validations"))
		}},
		{Path: "signal.html", Render: func() ([]byte, error) {
			v := base("signal.html", "SIGNAL", "signal")
			v.Graph = buildGraph("signal", n.Agent, n.Votes)
			return execute("signal", v)
		}},
	}
	for _, t := range n.Traces {
		page := pagePath(t.File)
		v := base(page, t.Title, "home")
		v.Trace = t
		outs = append(outs, output{Path: page, Key: traceKey(n, t, v), Render: func() ([]byte, error) {
			body, err := renderMarkdown(t.Body)
			if err != nil {
				return nil, fmt.Errorf("trace %s: %w", t.File, err)
			}
			v.Body = template.HTML(body) // goldmark output, raw HTML off and links filtered
			return execute("trace", v)
		}})
	}
	return outs
}

func homeOf(n *Node) homeView {
	h := homeView{Latest: n.Traces, Given: n.Given}
	if len(h.Latest) > homeLatestTraces {
		h.Latest = h.Latest[:homeLatestTraces]
	}
	if len(h.Given) > homeGivenVotes {
		h.Given = h.Given[:homeGivenVotes]
	}
	for _, t := range n.Traces {
		h.Received += len(t.Received)
		if t.Status == "validated" {
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
