package site

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/validation"
)

//go:embed templates
var templateFS embed.FS

// pages holds one parsed template per page kind, each the shared layout
// and parts plus the page's own "content".
var pages = mustParsePages("home", "trace", "traces", "peers", "validations", "signal", "agent", "agents")

var notFoundPage = template.Must(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/notfound.html"))

var styleCSS = append(mustRead("templates/style.css"), codeCSS()...)

var funcs = template.FuncMap{
	"date":         formatDate,
	"signal":       formatSignal,
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
	"ago":          ago,
	"firstTraces":  func(ts []*Trace) []*Trace { return firstN(ts, agentTraces) },
	"firstRefs":    func(rs []*Ref) []*Ref { return firstN(rs, agentTraces) },
	"firstGave":    func(vs []*Vote) []*Vote { return firstN(vs, agentGave) },
	"firstScored":  func(vs []*Vote) []*Vote { return firstN(vs, agentScored) },
	"givenByAgent": givenByAgent,
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
	Prev, Next       *Trace // the same agent's neighbours of Trace
	Agent            *Agent
	Body             template.HTML
	Pager            *pager // a page of the traces list
	Timeline         timeline
	Graph            graph
	idx              *index
}

type homeView struct {
	Latest                      []meshTrace
	Top                         []Standing
	TopSignal                   float64
	Self                        *Agent
	Validated, Received, Active int
}

// meshTrace is one trace of the mesh in a list: ours links to its page
// and has an excerpt; a peer's links to its URL (we keep no copy of it).
type meshTrace struct {
	Title, Href, Agent, Excerpt string
	Own                         bool
	Submitted                   time.Time
}

// refLink is one citation, resolved to a page when the cited trace is known.
type refLink struct {
	Label, Title, Href string
	External           bool // Href is a peer's URL: the link gets rel="nofollow ugc noopener"
}

// footerFiles are the top-level published files every page's footer
// links to, when the node has them.
var footerFiles = []string{node.ManifestFile, node.AgentsFile, node.IdentityFile}

// Published keeps, of the given top-level files, those the site carries,
// so that a node without IDENTITY.md links to none.
func (v *view) Published(names ...string) []string {
	var out []string
	for _, name := range names {
		if v.idx.published[name] {
			out = append(out, name)
		}
	}
	return out
}

// chrome is a page's header, footer and head links, which depend only on
// the page's depth, its navigation item and the node: a site of 10,000
// trace pages renders them once, not 10,000 times (they were a tenth of
// a cold build).
type chrome struct {
	Links, Header, Footer template.HTML
}

// chromes renders each kind of page's chrome once per build.
type chromes struct {
	mu   sync.Mutex
	made map[string]*chrome
}

// Chrome is the page's chrome, rendered on first use for its kind.
func (v *view) Chrome() (*chrome, error) {
	k := v.Root + "\x00" + v.Nav
	v.idx.chromes.mu.Lock()
	defer v.idx.chromes.mu.Unlock()
	if c := v.idx.chromes.made[k]; c != nil {
		return c, nil
	}
	var c chrome
	for _, part := range []struct {
		name string
		into *template.HTML
	}{{"chrome-links", &c.Links}, {"chrome-header", &c.Header}, {"chrome-footer", &c.Footer}} {
		var buf bytes.Buffer
		if err := pages["home"].ExecuteTemplate(&buf, part.name, v); err != nil {
			return nil, fmt.Errorf("render %s: %w", part.name, err)
		}
		*part.into = template.HTML(buf.String()) // html/template output
	}
	if v.idx.chromes.made == nil {
		v.idx.chromes.made = map[string]*chrome{}
	}
	v.idx.chromes.made[k] = &c
	return &c, nil
}

// Footer is the published files the footer links to.
func (v *view) Footer() []string { return v.Published(footerFiles...) }

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
			l.Title, l.Href, l.External = r.Title, r.URL, r.URL != ""
		}
		out = append(out, l)
	}
	return out
}

func execute(name string, v *view) ([]byte, error) {
	var buf bytes.Buffer
	// Room for the page at once: a page grown from nothing copied itself
	// a dozen times, a tenth of the bytes a cold build allocated.
	buf.Grow(pageSizeHint + 2*len(v.Body))
	if err := pages[name].ExecuteTemplate(&buf, "layout", v); err != nil {
		return nil, fmt.Errorf("render %s page: %w", name, err)
	}
	return buf.Bytes(), nil
}

// pageSizeHint is about the size of a page without its trace body.
const pageSizeHint = 16 << 10

func formatDate(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func formatDay(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format(time.DateOnly)
}

// formatDated is the day of an event whose date may not be known (a
// validation that gave none): "unknown", where formatDay says "never".
func formatDated(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return formatDay(t)
}

func formatSignal(f float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
}

// statusClass keeps a peer-supplied status usable as a CSS class name.
func statusClass(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return -1
	}, s)
}
