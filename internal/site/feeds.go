package site

import (
	"bytes"
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/validation"
)

// How much the feeds carry. A feed is for following, not an archive: a
// reader that polls daily misses nothing at these sizes, and every feed
// has a fixed ceiling, so the site stays far below GitHub Pages' 1 GB
// however large the mesh grows (docs/site.md, "Feeds").
const (
	// feedEntries is how many entries the node's own feeds carry (its
	// traces, its validations, the mesh's traces).
	feedEntries = 50
	// agentFeedEntries is how many entries each other agent's feed
	// carries: its newest traces.
	agentFeedEntries = 20
	// feedBodyBytes bounds the rendered body of one of our traces in
	// feed.atom; a longer one is shown by its card and a link to its page.
	feedBodyBytes = 64 << 10
	// feedTitleBytes bounds a title in a feed: titles come from strangers.
	feedTitleBytes = 300
)

// The feeds' paths in the site.
const (
	tracesFeedPath      = "feed.atom"
	meshFeedPath        = "mesh.atom"
	validationsFeedPath = "validations.atom"
)

// feedOutputs lists every Atom feed of the site: ours, the mesh's, the
// validations we gave, and one per other agent whose traces we have seen.
func feedOutputs(n *Node, idx *index) []output {
	outs := []output{
		{Path: tracesFeedPath, Key: func() string { return tracesFeedKey(n, idx) }, Render: own(func() ([]byte, error) { return tracesFeed(n, idx) })},
		{Path: meshFeedPath, Key: func() string { return meshFeedKey(n, idx) }, Render: own(func() ([]byte, error) { return meshFeed(n, idx) })},
		{Path: validationsFeedPath, Key: func() string { return validationsFeedKey(n, idx) }, Render: own(func() ([]byte, error) { return validationsFeed(n, idx) })},
	}
	for _, a := range n.Agents {
		if p := a.Feed(); p != "" {
			outs = append(outs, output{Path: p, Key: func() string { return agentFeedKey(n, idx, a) }, Render: own(func() ([]byte, error) { return agentFeed(n, idx, a) })})
		}
	}
	return outs
}

// The sites of the feeds: where each is and the page it stands for.
func tracesFeedSite(n *Node) feedSite {
	return feedSite{base: n.URL, self: tracesFeedPath, page: tracesDir + "/index.html"}
}

func meshFeedSite(n *Node) feedSite {
	return feedSite{base: n.URL, self: meshFeedPath, page: "index.html"}
}

func validationsFeedSite(n *Node) feedSite {
	return feedSite{base: n.URL, self: validationsFeedPath, page: "validations.html"}
}

func agentFeedSite(n *Node, a *Agent) feedSite {
	return feedSite{base: n.URL, self: a.Feed(), page: a.Page()}
}

// Feed is the path of the agent's own Atom feed, or "" when it has none:
// we have seen none of its traces, or it is this node, whose traces are
// feed.atom.
func (a *Agent) Feed() string {
	if a.Self || len(a.Refs) == 0 {
		return ""
	}
	return agentsDir + "/" + a.Slug + ".atom"
}

// tracesFeed is the Atom feed of our newest traces, each with its whole
// rendered body up to feedBodyBytes.
func tracesFeed(n *Node, idx *index) ([]byte, error) {
	s := tracesFeedSite(n)
	f := atomFeed{Title: n.Agent + ": traces", Subtitle: "Traces published by " + n.Agent + ", a node of the mesh."}
	for _, t := range firstN(n.Traces, feedEntries) {
		e, err := ownEntry(n, idx, s, t, true)
		if err != nil {
			return nil, err
		}
		f.Entries = append(f.Entries, e)
	}
	return writeAtom(f, s, n)
}

// meshFeed is the Atom feed of the newest traces of the whole mesh, ours
// and every peer's, each as its card with its excerpt.
func meshFeed(n *Node, idx *index) ([]byte, error) {
	s := meshFeedSite(n)
	f := atomFeed{Title: n.Agent + ": the mesh's traces", Subtitle: "The newest traces of every agent " + n.Agent + " knows, its own included."}
	for _, it := range idx.newestOfMesh(n, feedEntries) {
		var e atomEntry
		var err error
		if it.own != nil {
			e, err = ownEntry(n, idx, s, it.own, false)
		} else {
			e, err = peerEntry(idx, s, it.ref)
		}
		if err != nil {
			return nil, err
		}
		f.Entries = append(f.Entries, e)
	}
	return writeAtom(f, s, n)
}

// agentFeed is the Atom feed of another agent's newest traces, as cards.
func agentFeed(n *Node, idx *index, a *Agent) ([]byte, error) {
	s := agentFeedSite(n, a)
	f := atomFeed{Title: a.Name + "'s traces, as " + n.Agent + " sees them", Subtitle: "The newest traces " + n.Agent + " has seen of " + a.Name + "."}
	for _, r := range firstN(undisputed(a.Refs), agentFeedEntries) {
		e, err := peerEntry(idx, s, r)
		if err != nil {
			return nil, err
		}
		f.Entries = append(f.Entries, e)
	}
	return writeAtom(f, s, n)
}

// undisputed is refs without the disputed ones: a feed carries no entry
// of a trace a dispute says no longer verifies.
func undisputed(refs []*Ref) []*Ref {
	out := make([]*Ref, 0, len(refs))
	for _, r := range refs {
		if !r.Disputed {
			out = append(out, r)
		}
	}
	return out
}

// newestRefs is the peers' traces in the order their authors published
// them, newest first: by submitted date, then seq, then agent.
func newestRefs(refs []*Ref) []*Ref {
	type keyed struct {
		agent string // agentKey, made once per ref, not at every comparison
		ref   *Ref
	}
	items := make([]keyed, len(refs))
	for i, r := range refs {
		items[i] = keyed{agentKey(r.Agent), r}
	}
	slices.SortStableFunc(items, func(a, b keyed) int {
		switch {
		case newer(a.ref.Submitted, a.ref.Seq, a.agent, b.ref.Submitted, b.ref.Seq, b.agent):
			return -1
		case newer(b.ref.Submitted, b.ref.Seq, b.agent, a.ref.Submitted, a.ref.Seq, a.agent):
			return 1
		}
		return 0
	})
	out := make([]*Ref, len(items))
	for i, it := range items {
		out[i] = it.ref
	}
	return out
}

// newer orders two traces of the mesh newest first: by date, then seq,
// then agent.
func newer(ti time.Time, si manifest.Seq, ai string, tj time.Time, sj manifest.Seq, aj string) bool {
	switch {
	case !ti.Equal(tj):
		return ti.After(tj)
	case si != sj:
		return si > sj
	}
	return ai < aj
}

// meshItem is one trace of the mesh feed: one of ours or a peer's.
type meshItem struct {
	own *Trace
	ref *Ref
}

// newestOfMesh is the k newest traces of the mesh by their submitted date,
// then seq, then agent: the order their authors published them in. The
// order is found once per build, for the home page, the mesh feed and
// their keys alike.
func (idx *index) newestOfMesh(n *Node, k int) []meshItem {
	idx.newestOnce.Do(func() { idx.newest = newestOfMesh(n) })
	return firstN(idx.newest, k)
}

// newestOfMesh is every trace of the mesh but the disputed, newest first.
// Each sort key is made once, not at every comparison.
func newestOfMesh(n *Node) []meshItem {
	type keyed struct {
		at    time.Time
		seq   manifest.Seq
		agent string
		item  meshItem
	}
	items := make([]keyed, 0, len(n.Traces)+len(n.Others))
	for _, t := range n.Traces {
		items = append(items, keyed{t.Submitted, t.Seq, "", meshItem{own: t}})
	}
	for _, r := range n.Others {
		if !r.Disputed {
			items = append(items, keyed{r.Submitted, r.Seq, agentKey(r.Agent), meshItem{ref: r}})
		}
	}
	slices.SortStableFunc(items, func(a, b keyed) int {
		switch {
		case newer(a.at, a.seq, a.agent, b.at, b.seq, b.agent):
			return -1
		case newer(b.at, b.seq, b.agent, a.at, a.seq, a.agent):
			return 1
		}
		return 0
	})
	out := make([]meshItem, len(items))
	for i, it := range items {
		out[i] = it.item
	}
	return out
}

// ownEntry is one of our traces: its card, and its rendered body when
// withBody and the body fits in feedBodyBytes. The body is the page's
// body, rendered by the same code, so it is sanitized exactly as pages
// are.
func ownEntry(n *Node, idx *index, s feedSite, t *Trace, withBody bool) (atomEntry, error) {
	page := pagePath(t.File)
	c := card{Title: feedTitle(t.Title, n.Agent, t.Seq), Href: s.url(page), Agent: linkAgent(idx, "", n.Agent),
		Date: t.Submitted, Status: t.Status, Passing: t.Passing, Seen: t.Seen, Excerpt: excerpt(t.Body)}
	if c.Agent.Href != "" {
		c.Agent.Href = s.url(c.Agent.Href)
	}
	var body template.HTML
	if withBody {
		var err error
		if body, err = renderTrace(t.Body, t.Title, idx, n.URL); err != nil {
			return atomEntry{}, fmt.Errorf("trace %s: %w", t.File, err)
		}
		if len(body) > feedBodyBytes {
			body, c.TooLong = "", true
		} else {
			c.Excerpt = ""
		}
	}
	content, err := c.html(body)
	if err != nil {
		return atomEntry{}, err
	}
	e := atomEntry{Title: c.Title, ID: idOf(n.URL, page, string(t.Hash)), Published: atomTime(t.Submitted), Updated: atomTime(t.Submitted),
		Author: &atomAuthor{Name: n.Agent, URI: n.URL}, Link: atomLink{Href: c.Href, Rel: "alternate", Type: "text/html"},
		Content: &atomContent{Type: "html", Body: content}}
	if n.URL != "" {
		e.Content.Base = n.URL + page
	}
	return e, nil
}

// peerEntry is a peer's trace: its card with the excerpt of the copy the
// node keeps, linked to the copy's reading page, and to the trace where
// the peer publishes it.
func peerEntry(idx *index, s feedSite, r *Ref) (atomEntry, error) {
	c := card{Title: feedTitle(r.Title, r.Agent, r.Seq), Agent: linkAgent(idx, "", or(strings.TrimSpace(r.Agent), "unknown")), Date: r.Submitted,
		Status: r.Status, Passing: r.Passing, Seen: r.Seen, Peer: true, Excerpt: r.Excerpt}
	if linkable(r.URL) {
		c.Href, c.Source = r.URL, r.URL
	}
	if linkable(r.Page) {
		c.Href = r.Page
	}
	if r.Read != "" {
		c.Href, c.Peer = s.url(r.Read), false
	}
	if c.Agent.Href != "" {
		c.Agent.Href = s.url(c.Agent.Href)
	}
	content, err := c.html("")
	if err != nil {
		return atomEntry{}, err
	}
	e := atomEntry{Title: c.Title, ID: "urn:" + string(r.Hash), Published: atomTime(r.Submitted), Updated: atomTime(r.Submitted),
		// No author URI: a peer's trace URL is a folder, which a static
		// host answers with 404 when it has no index.html.
		Author: &atomAuthor{Name: c.Agent.Name}, Link: atomLink{Href: or(c.Href, c.Agent.Href), Rel: "alternate"},
		Content: &atomContent{Type: "html", Body: content}}
	if e.Link.Href == "" {
		e.Link.Href = s.url(agentsDir + "/index.html")
	}
	return e, nil
}

// feedTitle is a trace's title as a feed shows it: bounded, and never
// blank (Atom requires a title), "agent/seq" for a trace that gives none.
func feedTitle(title, agent string, seq manifest.Seq) string {
	if t := strings.TrimSpace(title); t != "" {
		return shorten(t, feedTitleBytes)
	}
	return fmt.Sprintf("%s/%d", shorten(or(strings.TrimSpace(agent), "unknown"), feedTitleBytes), seq)
}

// linkable reports whether a URL a peer gave may be a link in a feed: an
// http or https URL that passes the pages' check (safeURL) and names a
// plain host (letters, digits, dots, hyphens, a port or an IPv6
// address), which every feed reader resolves alike.
func linkable(u string) bool {
	p, err := url.Parse(u)
	if err != nil || !safeURL(u) || !isExternal(u) || p.Host == "" {
		return false
	}
	for _, r := range p.Host {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-:[]", r)) {
			return false
		}
	}
	return true
}

// validationsFeed is the Atom feed of the validations we gave, apart from
// the traces so that a node that scores a lot does not bury its own work.
func validationsFeed(n *Node, idx *index) ([]byte, error) {
	s := validationsFeedSite(n)
	f := atomFeed{Title: n.Agent + ": validations given", Subtitle: "The scores " + n.Agent + " gave other agents' traces."}
	for _, v := range firstN(n.Given, feedEntries) {
		link := firstOf(v.File, "validations.html")
		target := shorten(or(v.TraceTitle, v.TraceURL), feedTitleBytes)
		vc := voteCard{Vote: v, Target: target, Agent: linkAgent(idx, "", or(v.Agent, "an unknown agent")), Dimensions: validation.Dimensions[:]}
		if linkable(v.TraceURL) {
			vc.Href = v.TraceURL
		}
		if vc.Agent.Href != "" {
			vc.Agent.Href = s.url(vc.Agent.Href)
		}
		var b bytes.Buffer
		if err := voteTemplate.Execute(&b, vc); err != nil {
			return nil, fmt.Errorf("validation %s: %w", v.File, err)
		}
		f.Entries = append(f.Entries, atomEntry{
			Title:     fmt.Sprintf("Validation of %s: %s %d/30", target, v.Result, v.Total),
			ID:        idOf(n.URL, link, string(v.TraceHash)),
			Published: atomTime(v.ValidatedAt),
			Updated:   atomTime(v.ValidatedAt),
			Link:      atomLink{Href: s.url(link), Rel: "alternate"},
			Content:   &atomContent{Type: "html", Body: b.String()},
		})
	}
	return writeAtom(f, s, n)
}

// card is what a feed says of a trace beyond its body: title, agent,
// date, status and score, and an excerpt. Every field is escaped by
// html/template; peer links carry rel="ugc nofollow".
type card struct {
	Title, Href   string
	Agent         agentRef
	Date          time.Time
	Status        manifest.Status
	Passing, Seen int
	Excerpt       string
	Peer          bool   // Href is the peer's own URL
	Source        string // a peer's trace: where it publishes it, when Href is our copy
	TooLong       bool   // the body did not fit in the feed
}

// html is the card as HTML, followed by body (already sanitized HTML).
func (c card) html(body template.HTML) (string, error) {
	var b bytes.Buffer
	b.Grow(512 + len(body))
	if err := cardTemplate.Execute(&b, c); err != nil {
		return "", fmt.Errorf("feed entry %q: %w", c.Title, err)
	}
	b.WriteString(string(body))
	return b.String(), nil
}

// voteCard is what a feed says of one validation.
type voteCard struct {
	*Vote
	Target, Href string
	Agent        agentRef
	Dimensions   []string
}

var cardTemplate = template.Must(template.New("card").Funcs(template.FuncMap{"day": formatDated}).Parse(strings.TrimSpace(`
<p>{{if .Href}}<a href="{{.Href}}"{{if .Peer}} rel="ugc nofollow"{{end}}>{{.Title}}</a>{{else}}{{.Title}}{{end}}
by {{if .Agent.Href}}<a href="{{.Agent.Href}}">{{.Agent.Name}}</a>{{else}}{{.Agent.Name}}{{end}}, {{day .Date}}.
Status: {{or .Status "unknown"}}{{if .Seen}}, {{.Passing}} of {{.Seen}} validators passed it{{end}}.</p>
{{with .Excerpt}}<p>{{.}}</p>{{end}}{{if and .Source (not .Peer)}}<p>The original: <a href="{{.Source}}" rel="ugc nofollow">{{.Source}}</a></p>{{end}}{{if .TooLong}}<p>Too long for this feed: read it on its page.</p>{{end}}
`)))

var voteTemplate = template.Must(template.New("vote").Parse(strings.TrimSpace(`
<p>Scored {{if .Href}}<a href="{{.Href}}" rel="ugc nofollow">{{.Target}}</a>{{else}}{{.Target}}{{end}}
by {{if .Agent.Href}}<a href="{{.Agent.Href}}">{{.Agent.Name}}</a>{{else}}{{.Agent.Name}}{{end}}:
{{.Result}}, {{.Total}} of 30.</p>
{{if .HasScores}}<ul>{{range $i, $d := .Dimensions}}<li>{{$d}}: {{index $.Scores $i}}</li>{{end}}</ul>{{end}}
<p>Trace hash <code>{{.TraceHash}}</code></p>
`)))
