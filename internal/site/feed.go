package site

import (
	"encoding/xml"
	"fmt"
	"time"
)

// atomFeed is an Atom 1.0 feed (RFC 4287), as much of it as the site
// writes. gorilla/feeds, used before, cannot write a rel="self" link, nor
// an entry's own author or published date.
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
	Title     string       `xml:"title"`
	ID        string       `xml:"id"`
	Published string       `xml:"published,omitempty"`
	Updated   string       `xml:"updated"`
	Author    *atomAuthor  `xml:"author,omitempty"`
	Link      atomLink     `xml:"link"`
	Summary   string       `xml:"summary,omitempty"`
	Content   *atomContent `xml:"content,omitempty"`
}

type atomContent struct {
	Type string `xml:"type,attr"`
	Base string `xml:"http://www.w3.org/XML/1998/namespace base,attr,omitempty"`
	Body string `xml:",chardata"`
}

// feedSite makes the URLs of one feed: absolute under the node's URL when
// it is known, else relative to the feed's own place in the site, which
// feed readers resolve against the feed's address.
type feedSite struct {
	base string // the node's URL, may be empty
	self string // the feed's path in the site, "agents/ada.atom"
	page string // the page that shows what the feed holds, "agents/ada.html"
}

// url is the URL of a site file, as seen from the feed.
func (s feedSite) url(file string) string {
	if s.base == "" {
		return rootOf(s.self) + file
	}
	return absolute(s.base, file)
}

// writeAtom encodes a feed. Its updated time is its newest entry's (the
// node's MANIFEST time for a feed with none): times come from the data,
// never from the clock, so an unchanged node gives an unchanged feed.
func writeAtom(f atomFeed, s feedSite, n *Node) ([]byte, error) {
	f.ID = idOf(n.URL, s.self, "feed:"+n.Agent+":"+s.self)
	f.Author = atomAuthor{Name: n.Agent, URI: n.URL}
	f.Links = []atomLink{
		{Href: s.url(s.self), Rel: "self", Type: "application/atom+xml"},
		{Href: s.url(s.page), Rel: "alternate", Type: "text/html"},
	}
	updated := n.Updated.UTC().Format(time.RFC3339)
	if len(f.Entries) > 0 {
		updated = ""
		for _, e := range f.Entries {
			updated = max(updated, e.Updated) // RFC 3339 in UTC sorts as text
		}
	}
	f.Updated = updated
	b, err := xml.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("write atom feed %s: %w", s.self, err)
	}
	return append(append([]byte(xml.Header), b...), '\n'), nil
}

// atomTime is a time as Atom writes it (RFC 3339, UTC).
func atomTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
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
// it stays the relative file name.
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
