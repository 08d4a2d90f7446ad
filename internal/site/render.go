package site

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"path"
	"strings"

	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/validation"
)

//go:embed templates
var templateFS embed.FS

// pages holds one parsed template per page kind, each the shared layout
// and parts plus the page's own "content".
var pages = mustParsePages("home", "traces", "mesh", "peers", "validations", "signal", "agent", "agents")

var styleCSS = append(mustRead("templates/style.css"), codeCSS()...)

var funcs = template.FuncMap{
	"date":         formatDate,
	"signal":       formatSignal,
	"points":       formatPoints,
	"statusClass":  statusClass,
	"dimensions":   func() []string { return validation.Dimensions[:] },
	"page":         func(root, file string) string { return root + pagePath(file) },
	"base":         path.Base,
	"inc":          func(i int) int { return i + 1 },
	"sub":          func(a, b int) int { return a - b },
	"day":          formatDay,
	"dated":        formatDated,
	"at":           func(p *view, v any) rooted { return rooted{P: p, V: v} },
	"labelled":     func(p *view, label string, v any) rooted { return rooted{P: p, V: v, Label: label} },
	"excerpt":      func(t *Trace) string { return excerpt(t.Body) },
	"pct":          func(part, whole float64) float64 { return round1(100 * part / max(whole, 1)) },
	"firstTraces":  func(ts []*Trace) []*Trace { return firstN(ts, agentTraces) },
	"firstRefs":    func(rs []*Ref) []*Ref { return firstN(rs, agentTraces) },
	"firstGave":    func(vs []*Vote) []*Vote { return firstN(vs, agentGave) },
	"givenByAgent": givenByAgent,
	"headTitle":    headTitle,
	"traceRows":    traceRows,
	"refRows":      refRows,
	"pagerNav":     pagerNav,
}

// rooted hands a part template its value with the page it is on, so the
// links it makes are relative to the page.
type rooted struct {
	P     *view
	V     any
	Label string // an accessible name, when the part needs one
}

func mustParsePages(names ...string) map[string]*template.Template {
	shared := template.Must(template.New("").Funcs(funcs).ParseFS(templateFS,
		"templates/layout.html", "templates/parts.html", "templates/charts.html"))
	// parts.html's "pager" is pagerNav's specification
	// (TestPagerMatchesTemplate); pages call pagerNav in its place.
	template.Must(shared.New("pager").Parse("{{pagerNav .}}"))
	m := map[string]*template.Template{}
	for _, n := range names {
		t := template.Must(shared.Clone())
		m[n] = template.Must(t.ParseFS(templateFS, "templates/"+n+".html"))
	}
	return m
}

func mustRead(name string) []byte {
	b, err := templateFS.ReadFile(name)
	if err != nil {
		panic(err) // embedded at compile time: absent only if the build is broken
	}
	return b
}

// pagePath is the HTML page rendered beside a markdown file.
func pagePath(file string) string {
	return strings.TrimSuffix(file, path.Ext(file)) + ".html"
}

// rootOf is the relative prefix from a page back to the site root, so the
// site works under https://OWNER.github.io/REPO/ and from a local folder.
func rootOf(page string) string {
	return strings.Repeat("../", strings.Count(page, "/"))
}

// view is what a page template sees.
type view struct {
	Root, Title, Nav string
	Desc             string // meta description and Open Graph description
	Canonical        string // absolute URL of the page, when the node's URL is known
	Node             *Node
	Home             homeView
	Trace            *Trace
	Ref              *Ref   // the peer's trace a reading page shows
	Prev, Next       *Trace // the same agent's neighbours of Trace
	Agent            *Agent
	Body             template.HTML
	Pager            *pager // a page of a paged list
	Timeline         timeline
	Graph            graph
	idx              *index
}

// refLink is one citation, resolved to a page when the cited trace is known.
type refLink struct {
	Label, Title, Href string
	External           bool // Href is a peer's URL: the link gets rel="nofollow ugc noopener"
}

// agentRef is an agent's name and, when it has a page, the link to it.
type agentRef struct {
	Name, Href string
}

// AgentLink names an agent and links to its page, relative to the page.
func (v *view) AgentLink(name string) agentRef {
	return linkAgent(v.idx, v.Root, name)
}

func linkAgent(idx *index, root, name string) agentRef {
	if a := idx.agents[agentKey(name)]; a != nil {
		return agentRef{Name: name, Href: root + a.Page()}
	}
	return agentRef{Name: name}
}

// Refs resolves "agent/seq" citations relative to the page.
func (v *view) Refs(cites []string) []refLink {
	out := make([]refLink, 0, len(cites))
	for _, c := range cites {
		l := refLink{Label: c}
		if t, ok := v.idx.own[c]; ok {
			l.Title, l.Href = t.Title, v.Root+pagePath(t.File)
		} else if r, ok := v.idx.refs[c]; ok {
			l.Title, l.Href, l.External = r.Title, r.Href(v.Root), r.External() && r.URL != ""
		}
		out = append(out, l)
	}
	return out
}

// CopyKiB is how much of a peer's trace a copy holds, in KiB.
func (v *view) CopyKiB() int { return copies.MaxTextBytes >> 10 }

// execute renders the template name of v into buf.
func execute(buf *bytes.Buffer, name string, v *view) ([]byte, error) {
	buf.Reset()
	if err := pages[name].ExecuteTemplate(buf, "layout", v); err != nil {
		return nil, fmt.Errorf("render %s page: %w", name, err)
	}
	return buf.Bytes(), nil
}
