package site

import (
	"encoding/xml"
	"fmt"
	"sort"
	"time"
)

// feedEntries is how many entries each Atom feed carries: enough for a
// reader that polls daily.
const feedEntries = 50

// atomFeed is an Atom 1.0 feed (RFC 4287), as much of it as the site
// writes. gorilla/feeds, used before, cannot write a rel="self" link.
type atomFeed struct {
	XMLName  xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Title    string      `xml:"title"`
	ID       string      `xml:"id"`
	Updated  string      `xml:"updated"`
	Subtitle string      `xml:"subtitle,omitempty"`
	Links    []atomLink  `xml:"link"`
	Author   atomAuthor  `xml:"author"`
	Entries  []atomEntry `xml:"entry"`
}

type atomLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr,omitempty"`
}

type atomAuthor struct {
	Name string `xml:"name"`
	URI  string `xml:"uri,omitempty"`
}

type atomEntry struct {
	Title   string       `xml:"title"`
	ID      string       `xml:"id"`
	Updated string       `xml:"updated"`
	Link    atomLink     `xml:"link"`
	Summary string       `xml:"summary,omitempty"`
	Content *atomContent `xml:"content,omitempty"`
}

type atomContent struct {
	Type string `xml:"type,attr"`
	Base string `xml:"http://www.w3.org/XML/1998/namespace base,attr,omitempty"`
	Body string `xml:",chardata"`
}

// writeAtom encodes a feed; its times come from the data, never from the
// clock, so an unchanged node gives an unchanged feed.
func writeAtom(f atomFeed, self string, n *Node) ([]byte, error) {
	f.ID = idOf(n.URL, self, "feed:"+n.Agent+":"+self)
	f.Author = atomAuthor{Name: n.Agent, URI: n.URL}
	f.Links = []atomLink{
		{Href: absolute(n.URL, self), Rel: "self", Type: "application/atom+xml"},
		{Href: absolute(n.URL, "index.html"), Rel: "alternate", Type: "text/html"},
	}
	updated := n.Updated
	for _, e := range f.Entries {
		if t, err := time.Parse(time.RFC3339, e.Updated); err == nil && t.After(updated) {
			updated = t
		}
	}
	f.Updated = updated.UTC().Format(time.RFC3339)
	b, err := xml.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("write atom feed %s: %w", self, err)
	}
	return append(append([]byte(xml.Header), b...), '\n'), nil
}

// tracesFeed is the Atom feed of our newest traces, each with its whole
// rendered body.
func tracesFeed(n *Node, idx *index) ([]byte, error) {
	f := atomFeed{Title: n.Agent + ": traces", Subtitle: "Traces published by " + n.Agent + ", a node of the mesh."}
	for _, t := range firstN(newestTraces(n.Traces), feedEntries) {
		page := pagePath(t.File)
		body, err := renderTrace(t.Body, t.Title, idx, n.URL)
		if err != nil {
			return nil, fmt.Errorf("trace %s: %w", t.File, err)
		}
		e := atomEntry{Title: t.Title, ID: idOf(n.URL, page, string(t.Hash)), Updated: t.Submitted.UTC().Format(time.RFC3339),
			Link:    atomLink{Href: absolute(n.URL, page), Rel: "alternate", Type: "text/html"},
			Summary: excerpt(t.Body),
			Content: &atomContent{Type: "html", Body: string(body)}}
		if n.URL != "" {
			e.Content.Base = n.URL + page
		}
		f.Entries = append(f.Entries, e)
	}
	return writeAtom(f, "feed.atom", n)
}

// validationsFeed is the Atom feed of the validations we gave, apart from
// the traces so that a node that scores a lot does not bury its own work.
func validationsFeed(n *Node) ([]byte, error) {
	f := atomFeed{Title: n.Agent + ": validations given", Subtitle: "The scores " + n.Agent + " gave other agents' traces."}
	for _, v := range firstN(n.Given, feedEntries) {
		link := firstOf(v.File, "validations.html")
		target := or(v.TraceTitle, v.TraceURL)
		f.Entries = append(f.Entries, atomEntry{
			Title:   fmt.Sprintf("Validation of %s: %s %d/30", target, v.Result, v.Total),
			ID:      idOf(n.URL, link, string(v.TraceHash)),
			Updated: v.ValidatedAt.UTC().Format(time.RFC3339),
			Link:    atomLink{Href: absolute(n.URL, link), Rel: "alternate"},
			Summary: fmt.Sprintf("%s scored %s by %s (%s): %s, %d of 30.", n.Agent, target, or(v.Agent, "an unknown agent"), v.TraceHash, v.Result, v.Total),
		})
	}
	return writeAtom(f, "validations.atom", n)
}

// newestTraces orders traces by the time their author gave them, newest
// first (n.Traces is by seq).
func newestTraces(ts []*Trace) []*Trace {
	out := append([]*Trace(nil), ts...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Submitted.After(out[j].Submitted) })
	return out
}

// idOf is an entry's permanent id: its absolute URL when the node's URL is
// known, else a URN of the file's hash.
func idOf(base, rel, urn string) string {
	if base != "" {
		return base + rel
	}
	return "urn:" + urn
}

// absolute is the URL of a site file: the node's URL joined with the
// file's URL path (urlPath: a directory, not its index.html); with no URL
// it stays the relative file name, which feed readers resolve against the
// feed's own address.
func absolute(base, rel string) string {
	if base == "" {
		return rel
	}
	return base + urlPath(rel)
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
