package audit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"strconv"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/site"
)

// signalPage is the site's page of SIGNAL standings (internal/site).
const signalPage = "signal.html"

// maxPageBytes bounds one page read. A page is rendered from at most one
// trace (itself bounded by the trace limit) or one row per agent: 8 MiB
// holds either many times over, and a hostile node cannot make verify
// hold more.
const maxPageBytes = 8 << 20

// Fields a page claim is about.
const (
	FieldSignal = "signal"
	FieldTier   = "tier"
	FieldStatus = "status"
)

// Site is what the audited node's pages show of what the files decide,
// each value judged as a MANIFEST row is.
type Site struct {
	// Notes say what could not be checked: no site, a page not served or
	// carrying no value, an agent verify did not read. None is a problem.
	Notes    []string `json:"notes"`
	Claims   []Claim  `json:"claims"`
	Agree    int      `json:"agree"`
	Lag      int      `json:"lag"`
	Disagree int      `json:"disagree"`
}

// Claim is one value a page shows: an agent's SIGNAL or tier on
// signal.html, or a trace's status on its page.
type Claim struct {
	Page string `json:"page"`
	// Subject is the agent (signal, tier) or the trace's file (status).
	Subject  string `json:"subject"`
	Field    string `json:"field"`
	Shown    string `json:"shown"`
	Computed string `json:"computed"`
	// SeenValue is what the files give without the peers' files dated
	// after the node last wrote its MANIFEST.
	SeenValue string `json:"seen_value"`
	Verdict   string `json:"verdict"`
}

// pages are the site's pages an audit read, and what it could not read.
type pages struct {
	byPath map[string][]byte
	lists  []string // the pages of the traces list read, in order
	notes  []string
}

// readPages reads signal.html, the page of every trace row of m, and the
// pages of the traces list. A site that is not served is a note: a node
// need not publish one.
func readPages(ctx context.Context, src source, m *manifest.Manifest) (*pages, error) {
	p := &pages{byPath: map[string][]byte{}, notes: []string{}}
	ok, err := p.read(ctx, src, signalPage, false)
	if err != nil {
		return nil, err
	}
	if !ok {
		if len(p.notes) == 0 {
			p.notes = append(p.notes, signalPage+" not served: no site to check")
		}
		return p, nil
	}
	rows := 0
	for _, e := range m.Entries {
		if e.Hash == "" || path.Dir(e.File) != node.TracesDir {
			continue
		}
		rows++
		if _, err := p.read(ctx, src, site.PagePath(e.File), true); err != nil {
			return nil, err
		}
	}
	// The list has at most one page per trace; the first page missing
	// past page 1 is its end, not a note.
	for k := 1; k <= max(1, rows); k++ {
		list := site.TraceListPage(k)
		ok, err := p.read(ctx, src, list, k == 1)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		p.lists = append(p.lists, list)
	}
	return p, nil
}

// read reads one page, and reports whether it could. A page that is
// not served is a note when noteMissing; any other failure to read it
// is one. Only a canceled context is an error.
func (p *pages) read(ctx context.Context, src source, page string, noteMissing bool) (bool, error) {
	data, err := src.read(ctx, page, maxPageBytes)
	switch {
	case ctx.Err() != nil:
		return false, ctx.Err()
	case errors.Is(err, errNotFound):
		if noteMissing {
			p.notes = append(p.notes, page+": not served")
		}
		return false, nil
	case err != nil:
		p.notes = append(p.notes, page+": "+err.Error())
		return false, nil
	}
	p.byPath[page] = data
	return true, nil
}

// auditSite judges what the pages show against full (the files) and seen
// (the files as of the node's last write), and each trace's status on its
// page and in the list against its row's.
func auditSite(p *pages, full, seen signal.Report, rows []Row) *Site {
	s := &Site{Notes: p.notes, Claims: []Claim{}}
	if page, ok := p.byPath[signalPage]; ok {
		s.standings(page, full, seen)
	}
	for _, r := range rows {
		name := site.PagePath(r.File)
		if page, ok := p.byPath[name]; ok {
			s.status(name, page, r)
		}
	}
	for _, list := range p.lists {
		s.list(list, p.byPath[list], rows)
	}
	return s
}

// standings judges every standing signal.html shows.
func (s *Site) standings(page []byte, full, seen signal.Report) {
	fullBy, seenBy := byName(full), byName(seen)
	shown := 0
	for _, el := range dataElements(page) {
		name, ok := el[attrAgent]
		if !ok {
			continue
		}
		shown++
		a, known := fullBy[name]
		switch {
		case !known:
			s.note(fmt.Sprintf("%s shows %q, an agent verify did not read (not named in AGENTS.md, or named twice)", signalPage, name))
			continue
		case a == nil:
			continue
		}
		was := seenBy[name]
		if was == nil {
			was = &signal.Agent{Tier: signal.TierProvisional}
		}
		s.add(Claim{Page: signalPage, Subject: name, Field: FieldSignal, Shown: el[attrSignal],
			Computed: formatSignal(a.Signal), SeenValue: formatSignal(was.Signal)}, sameSignal)
		s.add(Claim{Page: signalPage, Subject: name, Field: FieldTier, Shown: el[attrTier],
			Computed: a.Tier, SeenValue: was.Tier}, nil)
	}
	if shown == 0 {
		s.note(signalPage + " shows no standing with data-agent (a site built by another generator, or an older meshnode)")
	}
}

// status judges the status a trace page shows for the row's trace.
func (s *Site) status(name string, page []byte, r Row) {
	for _, el := range dataElements(page) {
		if el[attrHash] == string(r.Hash) {
			if shown, ok := el[attrStatus]; ok {
				s.add(Claim{Page: name, Subject: r.File, Field: FieldStatus, Shown: shown,
					Computed: string(r.Computed), SeenValue: string(r.SeenStatus)}, sameStatus)
				return
			}
		}
	}
	s.note(name + " shows no status for " + string(r.Hash))
}

// list judges every status a page of the traces list shows.
func (s *Site) list(name string, page []byte, rows []Row) {
	byHash := map[string]Row{}
	for _, r := range rows {
		byHash[string(r.Hash)] = r
	}
	for _, el := range dataElements(page) {
		hash, ok := el[attrHash]
		if !ok {
			continue
		}
		r, listed := byHash[hash]
		if !listed {
			s.note(fmt.Sprintf("%s shows a trace its MANIFEST.md does not list: %q", name, hash))
			continue
		}
		s.add(Claim{Page: name, Subject: r.File, Field: FieldStatus, Shown: el[attrStatus],
			Computed: string(r.Computed), SeenValue: string(r.SeenStatus)}, sameStatus)
	}
}

// add judges c (equal, when given, compares a shown value with a
// computed one) and records it.
func (s *Site) add(c Claim, equal func(a, b string) bool) {
	if equal == nil {
		equal = func(a, b string) bool { return a == b }
	}
	c.Verdict = judge(equal(c.Shown, c.Computed), equal(c.Shown, c.SeenValue))
	switch c.Verdict {
	case Agree:
		s.Agree++
	case Lag:
		s.Lag++
	default:
		s.Disagree++
	}
	s.Claims = append(s.Claims, c)
}

func (s *Site) note(n string) { s.Notes = append(s.Notes, n) }

// byName indexes r's agents by name; a name two agents share maps to nil,
// since a page naming it cannot say which it means.
func byName(r signal.Report) map[string]*signal.Agent {
	out := map[string]*signal.Agent{}
	for i := range r.Agents {
		a := &r.Agents[i]
		if _, dup := out[a.Agent]; dup {
			out[a.Agent] = nil
			continue
		}
		out[a.Agent] = a
	}
	return out
}

// formatSignal writes a SIGNAL exactly, as the site's data-signal does.
func formatSignal(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// sameSignal compares two SIGNAL figures as numbers: "54" and "54.0" are
// one value; what is not a number equals nothing.
func sameSignal(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && math.Abs(x-y) < 1e-9
}

func sameStatus(a, b string) bool {
	return manifest.NormalizeStatus(manifest.Status(a)) == manifest.NormalizeStatus(manifest.Status(b))
}
