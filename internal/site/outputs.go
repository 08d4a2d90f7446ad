package site

import (
	"bytes"
	"path/filepath"
	"sort"

	"github.com/meshnode/meshnode/internal/manifest"
)

// output is one file of the site and how to make its bytes.
type output struct {
	Path string // slash-separated, relative to the site root
	// Render gives the output's bytes, written into buf (a page) or held
	// by the output (a constant); either way they are the caller's only
	// until it next uses buf. A writer reuses one buffer from page to
	// page, so a page is rendered without a copy of its own.
	Render func(buf *bytes.Buffer) ([]byte, error)
	// Key, when set, makes a key of the inputs: equal keys give equal
	// bytes. The writers call it, on both cores.
	Key    func() string
	Source string // when set, the node's file this output is a copy of (linked, not copied)
}

// siteOutputs lists every file of the site, sorted by path.
func siteOutputs(n *Node) []output {
	idx := prepare(n)
	outs := pageOutputs(n, idx)
	for _, f := range n.Files {
		o := output{Path: f.Path, Render: constant(f.Data), Key: f.key}
		if n.Dir != "" {
			o.Source = filepath.Join(n.Dir, filepath.FromSlash(f.Path))
		}
		outs = append(outs, o)
	}
	outs = append(outs,
		// .nojekyll stops GitHub Pages from running Jekyll, which would
		// turn traces/*.md into HTML instead of serving their bytes.
		fixed(".nojekyll", nil),
		fixed("style.css", styleCSS),
		output{Path: "404.html", Key: func() string { return notFoundKey(n, idx) }, Render: own(func() ([]byte, error) { return notFound(n, idx) })},
		fixed("favicon.svg", favicon),
	)
	outs = append(outs, feedOutputs(n, idx)...)
	if r, ok := robots(n.URL); ok {
		outs = append(outs, fixed("robots.txt", r))
	}
	if n.URL != "" {
		entries := sitemapEntries(n, outs)
		outs = append(outs, output{Path: "sitemap.xml", Key: func() string { return sitemapKey(n.URL, entries) },
			Render: own(func() ([]byte, error) { return sitemap(n.URL, entries), nil })})
	}
	sort.Slice(outs, func(i, j int) bool { return outs[i].Path < outs[j].Path })
	return outs
}

// key is the cache key of a published file, copied byte for byte: the
// first 32 hex digits of its sha256, as the snapshot made it (or made
// now), as strong as keyOf's and without hashing the hash again.
func (f File) key() string {
	h := f.Hash
	if h == "" {
		h = manifest.HashBytes(f.Data)
	}
	return h.Hex(32)
}

// fixed is an output of bytes made without rendering, keyed by them:
// with a key, an unchanged rebuild neither reads its file back nor
// counts as rendering (write's rendering).
func fixed(path string, b []byte) output {
	return output{Path: path, Render: constant(b), Key: func() string { return keyOf(b) }}
}

func constant(b []byte) func(*bytes.Buffer) ([]byte, error) {
	return func(*bytes.Buffer) ([]byte, error) { return b, nil }
}

// own is an output that renders into bytes of its own (feeds, rare pages).
func own(render func() ([]byte, error)) func(*bytes.Buffer) ([]byte, error) {
	return func(*bytes.Buffer) ([]byte, error) { return render() }
}
