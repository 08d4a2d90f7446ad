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
	own       map[string]*Trace
	refs      map[string]*Ref
	agents    map[string]*Agent // by agentKey
	published map[string]bool   // paths of the published files
	chromes   chromes
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
	idx.agents = collectAgents(n)
	idx.published = make(map[string]bool, len(n.Files))
	for _, f := range n.Files {
		idx.published[f.Path] = true
	}
	return idx
}

// pageOutputs lists every generated page of the site.
func pageOutputs(n *Node, idx *index) []output {
	base := func(page, title, nav, desc string) *view {
		v := &view{Root: rootOf(page), Title: title, Nav: nav, Desc: desc, Node: n, idx: idx}
		if n.URL != "" {
			v.Canonical = n.URL + page
		}
		return v
	}
	timelineData := buildTimeline(traceTimes(n), voteTimes(n.Votes))
	outs := []output{
		{Path: "index.html", Render: func() ([]byte, error) {
			v := base("index.html", "Home", "home", homeDesc(n))
			v.Home, v.Timeline, v.Graph = homeOf(n, idx), timelineData, buildGraph("home", n.Agent, n.Votes)
			return execute("home", v)
		}},
		{Path: agentsDir + "/index.html", Render: func() ([]byte, error) {
			return execute("agents", base(agentsDir+"/index.html", "Agents", "agents", "Every agent of the mesh "+n.Agent+" knows, with SIGNAL and presence."))
		}},
		{Path: "peers.html", Render: func() ([]byte, error) {
			return execute("peers", base("peers.html", "Peers", "peers", "How polling each peer of "+n.Agent+" goes."))
		}},
		{Path: "validations.html", Render: func() ([]byte, error) {
			return execute("validations", base("validations.html", "Validations given", "validations", "The scores "+n.Agent+" gave other agents' traces."))
		}},
		{Path: "signal.html", Render: func() ([]byte, error) {
			v := base("signal.html", "SIGNAL", "signal", "SIGNAL standings of the mesh as "+n.Agent+" computes them, and how each was earned.")
			v.Graph = buildGraph("signal", n.Agent, n.Votes)
			return execute("signal", v)
		}},
	}
	for _, pg := range tracePages(n) {
		v := base(pg.Path, pg.title(), "traces", "Every trace "+n.Agent+" published, newest first"+pg.descSuffix())
		v.Pager = pg
		outs = append(outs, output{Path: pg.Path, Key: tracesKey(n, v), Render: func() ([]byte, error) { return execute("traces", v) }})
	}
	for _, a := range n.Agents {
		outs = append(outs, output{Path: a.Page(), Render: func() ([]byte, error) {
			v := base(a.Page(), a.Name, "agents", a.Name+": traces, validations, SIGNAL and presence, as "+n.Agent+" sees them.")
			v.Agent = a
			return execute("agent", v)
		}})
	}
	for i, t := range n.Traces {
		page := pagePath(t.File)
		v := base(page, t.Title, "traces", "")
		v.Trace = t
		// n.Traces is newest first: the previous trace is the next one in it.
		if i+1 < len(n.Traces) {
			v.Prev = n.Traces[i+1]
		}
		if i > 0 {
			v.Next = n.Traces[i-1]
		}
		outs = append(outs, output{Path: page, Key: traceKey(n, t, v), Render: func() ([]byte, error) {
			body, err := renderTrace(t.Body, t.Title, idx, v.Root)
			if err != nil {
				return nil, fmt.Errorf("trace %s: %w", t.File, err)
			}
			v.Body = template.HTML(body) // goldmark output, raw HTML off and links filtered
			v.Desc = excerpt(t.Body)
			return execute("trace", v)
		}})
	}
	return outs
}

// tracesPerPage is how many rows a page of the traces list holds: 10,000
// traces on one page made a 3.5 MB page no phone wants to load.
const tracesPerPage = 100

// pager is one page of the traces list, newest first: page 1 is
// traces/index.html, page k is traces/pages/k.html (a directory of its
// own, so that no trace file's page can take its name).
type pager struct {
	Path                string
	Number, Count       int      // this page's number, and how many pages there are
	First, Total        int      // the 1-based position of the first row, and all traces
	Traces              []*Trace // this page's rows
	Newer, Older, Index string   // hrefs relative to this page; empty at the ends
}

// tracePages splits n.Traces into pages of tracesPerPage; a node without
// traces still has one, empty, page 1.
func tracePages(n *Node) []*pager {
	count := max(1, (len(n.Traces)+tracesPerPage-1)/tracesPerPage)
	pages := make([]*pager, count)
	for i := range pages {
		lo, hi := i*tracesPerPage, min(len(n.Traces), (i+1)*tracesPerPage)
		pages[i] = &pager{Path: tracePagePath(i + 1), Number: i + 1, Count: count, First: lo + 1, Total: len(n.Traces), Traces: n.Traces[lo:hi]}
	}
	for i, p := range pages {
		root := rootOf(p.Path)
		p.Index = root + "traces/index.html"
		if i > 0 {
			p.Newer = root + pages[i-1].Path
		}
		if i+1 < len(pages) {
			p.Older = root + pages[i+1].Path
		}
	}
	return pages
}

// tracePagePath is where page k of the traces list is.
func tracePagePath(k int) string {
	if k == 1 {
		return "traces/index.html"
	}
	return fmt.Sprintf("traces/pages/%d.html", k)
}

// Last is the 1-based position of the page's last row.
func (p *pager) Last() int { return p.First + len(p.Traces) - 1 }

func (p *pager) title() string {
	if p.Number == 1 {
		return "Traces"
	}
	return fmt.Sprintf("Traces, page %d of %d", p.Number, p.Count)
}

func (p *pager) descSuffix() string {
	if p.Count == 1 {
		return "."
	}
	return fmt.Sprintf(": page %d of %d.", p.Number, p.Count)
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
		all = append(all, meshTrace{Title: r.Title, Href: r.URL, Agent: r.Agent, Submitted: r.Submitted})
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
