package site

import (
	"bytes"
	"fmt"
	"html/template"
	"sync"

	"github.com/meshnode/meshnode/internal/node"
)

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
