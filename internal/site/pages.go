package site

import (
	"bytes"
	"fmt"
	"html/template"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/meshnode/meshnode/internal/manifest"
)

// index finds traces by "agent/seq".
type index struct {
	own       map[string]*Trace
	refs      map[string]*Ref
	agents    map[string]*Agent // by agentKey
	published map[string]bool   // paths of the published files
	chromes   chromes
	chromeKey string // what every page's key holds of the node (chromeKey)
	// newest is every trace of the mesh, newest first, made once
	// (newestOfMesh).
	newest     []meshItem
	newestOnce sync.Once
}

// citeKey is the canonical "agent/seq" form: "czero/096" and "CZero/96"
// name the same trace.
func citeKey(agent string, seq manifest.Seq) string {
	return strings.ToLower(agent) + "/" + strconv.Itoa(int(seq))
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
	idx.chromeKey = chromeKey(n, idx)
	return idx
}

// pageOutputs lists every generated page of the site.
func pageOutputs(n *Node, idx *index) []output {
	base := func(page, title, nav, desc string) *view {
		v := &view{Root: rootOf(page), Title: title, Nav: nav, Desc: desc, Node: n, idx: idx}
		if n.URL != "" {
			v.Canonical = absolute(n.URL, page)
		}
		return v
	}
	timelineData := buildTimeline(traceTimes(n), voteTimes(n.Votes))
	// Each page's key is made from the view its template renders: the
	// view is made once, for whichever of the key and the page asks first.
	home := sync.OnceValue(func() *view {
		v := base("index.html", "Home", "home", homeDesc(n))
		v.Home, v.Timeline, v.Graph = homeOf(n, idx), timelineData, buildGraph("home", n.Agent, n.Trust)
		return v
	})
	agents := base(agentsDir+"/index.html", "Agents", "agents", "Every agent of the mesh "+n.Agent+" knows, with SIGNAL and presence.")
	peers := base("peers.html", "Peers", "peers", "How polling each peer of "+n.Agent+" goes.")
	signal := sync.OnceValue(func() *view {
		v := base("signal.html", "SIGNAL", "signal", "SIGNAL standings of the mesh as "+n.Agent+" computes them, and how each was earned.")
		v.Graph = buildGraph("signal", n.Agent, n.Trust)
		return v
	})
	outs := []output{
		{Path: "index.html", Key: func() string { return homeKey(n, home()) }, Render: func(buf *bytes.Buffer) ([]byte, error) { return execute(buf, "home", home()) }},
		{Path: agentsDir + "/index.html", Key: func() string { return agentsKey(n, agents) }, Render: func(buf *bytes.Buffer) ([]byte, error) { return execute(buf, "agents", agents) }},
		{Path: "peers.html", Key: func() string { return peersKey(n, peers) }, Render: func(buf *bytes.Buffer) ([]byte, error) { return execute(buf, "peers", peers) }},
		{Path: "signal.html", Key: func() string { return signalKey(n, signal()) }, Render: func(buf *bytes.Buffer) ([]byte, error) { return execute(buf, "signal", signal()) }},
	}
	for _, pg := range tracePages(n) {
		v := base(pg.Path, pg.titled("Traces"), "traces", "Every trace "+n.Agent+" published, newest first"+pg.descSuffix())
		v.Pager = pg
		outs = append(outs, output{Path: pg.Path, Key: func() string { return tracesKey(n, v) }, Render: func(buf *bytes.Buffer) ([]byte, error) { return execute(buf, "traces", v) }})
	}
	for _, pg := range meshPages(newestRefs(n.Others)) {
		v := base(pg.Path, pg.titled("Traces of the mesh"), "agents", "Every trace of the mesh's other agents that "+n.Agent+" has seen, newest first"+pg.descSuffix())
		v.Pager = pg
		outs = append(outs, output{Path: pg.Path, Key: func() string { return meshKey(n, v) }, Render: func(buf *bytes.Buffer) ([]byte, error) { return execute(buf, "mesh", v) }})
	}
	for _, pg := range votePages(n.Given) {
		v := base(pg.Path, pg.titled("Validations given"), "validations", "Every score "+n.Agent+" gave other agents' traces, newest first"+pg.descSuffix())
		v.Pager = pg
		outs = append(outs, output{Path: pg.Path, Key: func() string { return validationsKey(n, v) }, Render: func(buf *bytes.Buffer) ([]byte, error) { return execute(buf, "validations", v) }})
	}
	for _, a := range n.Agents {
		v := base(a.Page(), a.Name, "agents", a.Name+": traces, validations, SIGNAL and presence, as "+n.Agent+" sees them.")
		v.Agent = a
		outs = append(outs, output{Path: a.Page(), Key: func() string { return agentPageKey(n, v) }, Render: func(buf *bytes.Buffer) ([]byte, error) { return execute(buf, "agent", v) }})
	}
	outs = append(outs, readingOutputs(n, idx, base)...)
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
		outs = append(outs, output{Path: page, Key: func() string { return traceKey(n, t, v) }, Render: func(buf *bytes.Buffer) ([]byte, error) {
			body, err := renderTrace(t.Body, t.Title, idx, v.Root)
			if err != nil {
				return nil, fmt.Errorf("trace %s: %w", t.File, err)
			}
			// The body goes into a copy of the view: v lives as long as
			// the build, and 10,000 bodies kept in it were 40 MB of heap.
			page := *v
			page.Body = body
			page.Desc = excerpt(t.Body)
			return renderTracePage(buf, &page)
		}})
	}
	return outs
}

// readingOutputs are the reading pages of the copies the node keeps of
// peers' traces, rendered by the path of our own trace pages as a
// stranger's text (renderCopy).
func readingOutputs(n *Node, idx *index, base func(page, title, nav, desc string) *view) []output {
	var outs []output
	for _, r := range n.Others {
		if r.Read == "" {
			continue
		}
		v := base(r.Read, r.Title, "agents", r.Excerpt)
		v.Ref = r
		outs = append(outs, output{Path: r.Read, Key: func() string { return readingKey(n, r, v) }, Render: func(buf *bytes.Buffer) ([]byte, error) {
			body, err := readingBody(r, idx, v.Root)
			if err != nil {
				return nil, fmt.Errorf("copy of %s: %w", r.Hash, err)
			}
			v.Body = body
			return renderReadingPage(buf, v)
		}})
	}
	return outs
}

// readingBodyBytes bounds the rendered body of a reading page. A copy is
// at most 16 KiB of text, but highlighting can make each byte of code a
// dozen of HTML; a body over the bound is shown as the escaped text, so
// every reading page stays under about 100 KiB (docs/site.md).
const readingBodyBytes = 64 << 10

// readingBody is the copy of r rendered for its page, or its text
// escaped in a pre block when the rendering is over readingBodyBytes.
func readingBody(r *Ref, idx *index, root string) (template.HTML, error) {
	body, err := renderCopy(r.Text, r.Title, idx, root, r.URL)
	if err != nil {
		return "", err
	}
	if len(body) > readingBodyBytes {
		return template.HTML("<pre class=\"copy\">" + template.HTMLEscapeString(string(r.Text)) + "</pre>\n"), nil
	}
	return body, nil
}
