package audit

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/site"
)

// signalPage is the site's page of SIGNAL standings (internal/site).
const signalPage = "signal.html"

// Bounds on reading an audited node's site. A page is rendered from at
// most one trace (itself bounded by the trace limit) or one row per agent:
// 8 MiB holds either many times over. The site as a whole is bounded too,
// so that a node serving a huge page for each of its traces cannot make
// verify read without end; 256 MiB is over ten thousand real trace pages.
// A page holds a row per agent or 100 traces, so 10,000 tagged elements a
// page is plenty, and keeps what verify holds of a page small.
const (
	maxPageBytes  = 8 << 20
	maxSiteBytes  = 256 << 20
	maxPageValues = 10_000
)

// shownStanding is one standing signal.html shows.
type shownStanding struct{ agent, signal, tier string }

// shownStatus is one trace status a page shows.
type shownStatus struct{ page, hash, status string }

// pages is what verify read of the site: the values it shows that the
// files decide, and what could not be read. Pages themselves are not
// kept: a node's site may be large.
type pages struct {
	site      bool // signal.html was read: the node publishes a site
	standings []shownStanding
	statuses  []shownStatus // trace pages in MANIFEST order, then the list
	notes     []string
	spent     int64 // bytes read, against budget
	budget    int64
	exhausted bool
}

// readPages reads signal.html, the page of every trace row of m, and the
// pages of the traces list, until it has read budget bytes of them. A
// site that is not served is a note: a node need not publish one.
func readPages(ctx context.Context, src source, m *manifest.Manifest, budget int64) (*pages, error) {
	p := &pages{notes: []string{}, budget: budget}
	data, ok, err := p.read(ctx, src, signalPage, false)
	if err != nil || !ok {
		if err == nil && len(p.notes) == 0 {
			p.notes = append(p.notes, signalPage+" not served: no site to check")
		}
		return p, err
	}
	p.site = true
	p.readStandings(data)
	ours := map[string]bool{}
	for _, e := range m.Entries {
		if e.Hash == "" || path.Dir(e.File) != node.TracesDir {
			continue
		}
		ours[string(e.Hash)] = true
		if err := p.readTracePage(ctx, src, site.PagePath(e.File), string(e.Hash)); err != nil {
			return nil, err
		}
	}
	return p, p.readList(ctx, src, ours)
}

// read reads one page within the page and site bounds, and reports
// whether it could. A page that is not served is a note when
// noteMissing; any other failure to read it is one. Only a canceled
// context is an error.
func (p *pages) read(ctx context.Context, src source, page string, noteMissing bool) ([]byte, bool, error) {
	if p.spent >= p.budget {
		if !p.exhausted {
			p.exhausted = true
			p.note(fmt.Sprintf("%s: the site's pages passed %d bytes; it and the pages after it are not checked", page, p.budget))
		}
		return nil, false, nil
	}
	data, err := src.read(ctx, page, maxPageBytes)
	switch {
	case ctx.Err() != nil:
		return nil, false, ctx.Err()
	case errors.Is(err, errNotFound):
		if noteMissing {
			p.note(page + ": not served")
		}
		return nil, false, nil
	case err != nil:
		p.note(page + ": " + err.Error())
		return nil, false, nil
	}
	p.spent += int64(len(data))
	return data, true, nil
}

// elements is dataElements within maxPageValues, with a note when the
// page holds more.
func (p *pages) elements(page string, data []byte) []map[string]string {
	els, more := dataElements(data, maxPageValues)
	if more {
		p.note(fmt.Sprintf("%s: more than %d tagged elements; the rest are not checked", page, maxPageValues))
	}
	return els
}

func (p *pages) readStandings(data []byte) {
	for _, el := range p.elements(signalPage, data) {
		if name, ok := el[attrAgent]; ok {
			p.standings = append(p.standings, shownStanding{agent: name, signal: el[attrSignal], tier: el[attrTier]})
		}
	}
	if len(p.standings) == 0 {
		p.note(signalPage + " shows no standing with data-agent (a site built by another generator, or an older meshnode)")
	}
}

// readTracePage reads the status a trace's page shows for hash.
func (p *pages) readTracePage(ctx context.Context, src source, page, hash string) error {
	data, ok, err := p.read(ctx, src, page, true)
	if err != nil || !ok {
		return err
	}
	for _, el := range p.elements(page, data) {
		if status, ok := el[attrStatus]; ok && el[attrHash] == hash {
			p.statuses = append(p.statuses, shownStatus{page: page, hash: hash, status: status})
			return nil
		}
	}
	p.note(page + " shows no status for " + hash)
	return nil
}

// readList reads the pages of the traces list in order, and the status
// each shows of each of our traces (ours, by hash) the first time one
// shows it. It stops at the first page not served, or that shows none of
// our traces not shown before: a list has at most one page per trace.
func (p *pages) readList(ctx context.Context, src source, ours map[string]bool) error {
	shown := map[string]bool{}
	for k := 1; ; k++ {
		page := site.TraceListPage(k)
		data, ok, err := p.read(ctx, src, page, k == 1)
		if err != nil || !ok {
			return err
		}
		added, others, again := 0, 0, 0
		for _, el := range p.elements(page, data) {
			hash, ok := el[attrHash]
			switch {
			case !ok:
			case !ours[hash]:
				others++
			case shown[hash]:
				again++
			default:
				shown[hash] = true
				added++
				p.statuses = append(p.statuses, shownStatus{page: page, hash: hash, status: el[attrStatus]})
			}
		}
		if others > 0 {
			p.note(fmt.Sprintf("%s shows %d trace(s) its MANIFEST.md does not list", page, others))
		}
		if again > 0 {
			p.note(fmt.Sprintf("%s shows %d trace(s) an earlier page of the list showed; only the first is checked", page, again))
		}
		if added == 0 {
			return nil
		}
	}
}

func (p *pages) note(n string) { p.notes = append(p.notes, n) }
