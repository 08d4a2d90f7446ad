package site

import (
	"bytes"
	"encoding/xml"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// sitemapEntry is one URL of the sitemap and when its content last
// changed, as the data says (never the build's clock).
type sitemapEntry struct {
	Path    string
	LastMod time.Time
}

// sitemap lists every page and published file by absolute URL, as the
// sitemaps protocol requires; with no node URL there is no sitemap.
func sitemap(base string, entries []sitemapEntry) []byte {
	if base == "" {
		return nil
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, e := range entries {
		b.WriteString("  <url><loc>")
		_ = xml.EscapeText(&b, []byte(absolute(base, e.Path)))
		b.WriteString("</loc>")
		if !e.LastMod.IsZero() {
			b.WriteString("<lastmod>" + e.LastMod.UTC().Format(time.RFC3339) + "</lastmod>")
		}
		b.WriteString("</url>\n")
	}
	b.WriteString("</urlset>\n")
	return b.Bytes()
}

// sitemapKey covers what the sitemap shows: the node's URL and each
// entry's path and date.
func sitemapKey(base string, entries []sitemapEntry) string {
	b := make([]byte, 0, 64*len(entries))
	for _, e := range entries {
		b = strconv.AppendInt(append(append(b, e.Path...), 0), e.LastMod.UnixNano(), 10)
		b = append(b, '\n')
	}
	return keyOf(base, b)
}

// sitemapEntries lists the HTML pages of outs, sorted, each with the
// date its content last changed: a trace page when the trace was
// submitted or last validated, any other page when the MANIFEST was
// last updated.
func sitemapEntries(n *Node, outs []output) []sitemapEntry {
	traced := make(map[string]time.Time, len(n.Traces))
	for _, t := range n.Traces {
		last := t.Submitted
		for _, v := range t.Received {
			if v.ValidatedAt.After(last) {
				last = v.ValidatedAt
			}
		}
		traced[pagePath(t.File)] = last
	}
	var entries []sitemapEntry
	for _, o := range outs {
		if filepath.Ext(o.Path) != ".html" || o.Path == "404.html" {
			continue
		}
		last, ok := traced[o.Path]
		if !ok {
			last = n.Updated
		}
		entries = append(entries, sitemapEntry{Path: o.Path, LastMod: last})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	return entries
}

// robots lets every crawler in: peers poll MANIFEST.md and traces/, and
// the seed asks them to honour robots.txt, so closing anything here would
// cut the node off the mesh. Crawlers read robots.txt only at a host's
// root (RFC 9309 §2.3), so a site under a project path
// (https://OWNER.github.io/REPO/) gets none: its file there would be read
// by no one (docs/decisions.md, "robots.txt only at a host's root").
// ok is false when the site gets no robots.txt.
func robots(base string) (data []byte, ok bool) {
	if !atHostRoot(base) {
		return nil, false
	}
	return []byte("# Peers of the mesh poll MANIFEST.md, traces/ and validations/: all welcome.\nUser-agent: *\nAllow: /\nSitemap: " + base + "sitemap.xml\n"), true
}

// atHostRoot reports whether the node's URL is the root of its host
// (https://owner.github.io/, a custom domain), not a path under it.
func atHostRoot(base string) bool {
	u, err := url.Parse(base)
	return err == nil && u.Host != "" && (u.Path == "/" || u.Path == "")
}

// urlPath is the URL path of a site file as people and crawlers should
// name it: a directory's index.html is the directory itself ("…/", not
// "…/index.html"), as a web server serves it. Links between pages keep
// index.html, so the site also reads from a local folder.
func urlPath(file string) string {
	if file == "index.html" {
		return ""
	}
	if dir, ok := strings.CutSuffix(file, "/index.html"); ok {
		return dir + "/"
	}
	return file
}
