package site

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"html/template"
	"sort"

	"github.com/gorilla/feeds"
)

// feedEntries is how many items the Atom feed carries: enough for a
// reader that polls daily, small enough to stay a few kilobytes.
const feedEntries = 50

// feedAtom renders the Atom feed of our traces and the validations we
// gave, newest first. Its times come from the data, never from the clock,
// so an unchanged node gives an unchanged feed.
func feedAtom(n *Node) ([]byte, error) {
	items := feedItems(n)
	f := &feeds.Feed{
		Title:       n.Agent + ": traces and validations",
		Link:        &feeds.Link{Href: absolute(n.URL, "index.html")},
		Description: "Traces published by " + n.Agent + " and the validations it gave.",
		Author:      &feeds.Author{Name: n.Agent},
		Updated:     n.Updated,
		Items:       items,
	}
	if len(items) > 0 && items[0].Updated.After(f.Updated) {
		f.Updated = items[0].Updated
	}
	var buf bytes.Buffer
	if err := f.WriteAtom(&buf); err != nil {
		return nil, fmt.Errorf("write atom feed: %w", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

func feedItems(n *Node) []*feeds.Item {
	var items []*feeds.Item
	for _, t := range n.Traces {
		items = append(items, &feeds.Item{
			Id:          idOf(n.URL, pagePath(t.File), t.Hash),
			Title:       t.Title,
			Link:        &feeds.Link{Href: absolute(n.URL, pagePath(t.File))},
			Description: template.HTMLEscapeString(fmt.Sprintf("%s trace, seq %d, %s, %d validations received.", t.Type, t.Seq, t.Status, len(t.Received))),
			Updated:     t.Submitted,
		})
	}
	for _, v := range n.Given {
		link := v.File
		if link == "" {
			link = "validations.html"
		}
		items = append(items, &feeds.Item{
			Id:          idOf(n.URL, link, v.TraceHash),
			Title:       fmt.Sprintf("Validation of %s: %s %d/30", or(v.TraceTitle, v.TraceURL), v.Result, v.Total),
			Link:        &feeds.Link{Href: absolute(n.URL, link)},
			Description: template.HTMLEscapeString(fmt.Sprintf("%s scored %s (%s): %s, %d of 30.", n.Agent, or(v.TraceTitle, v.TraceURL), v.TraceHash, v.Result, v.Total)),
			Updated:     v.ValidatedAt,
		})
	}
	sort.SliceStable(items, func(i, j int) bool {
		if !items[i].Updated.Equal(items[j].Updated) {
			return items[i].Updated.After(items[j].Updated)
		}
		return items[i].Id < items[j].Id
	})
	if len(items) > feedEntries {
		items = items[:feedEntries]
	}
	return items
}

// idOf is an entry's permanent id: its absolute URL when the node's URL is
// known, else a URN of the file's hash.
func idOf(base, rel, hash string) string {
	if base != "" {
		return base + rel
	}
	return "urn:" + hash
}

// absolute joins the node's URL and a site path; with no URL it stays
// relative, which feed readers resolve against the feed's own address.
func absolute(base, rel string) string {
	return base + rel
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// sitemap lists every page and published file by absolute URL, as the
// sitemaps protocol requires; with no node URL there is no sitemap.
func sitemap(base string, paths []string) []byte {
	if base == "" {
		return nil
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, p := range paths {
		b.WriteString("  <url><loc>")
		_ = xml.EscapeText(&b, []byte(base+p))
		b.WriteString("</loc></url>\n")
	}
	b.WriteString("</urlset>\n")
	return b.Bytes()
}

// robots lets every crawler in: peers poll MANIFEST.md and traces/, and
// the seed asks them to honour robots.txt, so closing anything here would
// cut the node off the mesh.
func robots(base string) []byte {
	s := "# Peers of the mesh poll MANIFEST.md, traces/ and validations/: all welcome.\nUser-agent: *\nAllow: /\n"
	if base != "" {
		s += "Sitemap: " + base + "sitemap.xml\n"
	}
	return []byte(s)
}

// notFound renders 404.html. GitHub Pages serves it at any depth, so it
// carries its own CSS and links home by absolute URL when one is known.
func notFound(n *Node) ([]byte, error) {
	home := "index.html"
	if n.URL != "" {
		home = n.URL
	}
	var buf bytes.Buffer
	err := notFoundPage.ExecuteTemplate(&buf, "notfound", struct {
		Node *Node
		CSS  template.CSS
		Home string
	}{n, template.CSS(styleCSS), home})
	if err != nil {
		return nil, fmt.Errorf("render 404 page: %w", err)
	}
	return buf.Bytes(), nil
}
