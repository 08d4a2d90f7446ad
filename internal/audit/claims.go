package audit

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/signal"
)

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
// signal.html, or a trace's status on its page or in the list.
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

// auditSite judges what the pages show against full (the files) and seen
// (the files as of the node's last write), and each trace's status on its
// page and in the list against its row's.
func auditSite(p *pages, full, seen signal.Report, rows []Row) *Site {
	s := &Site{Notes: p.notes, Claims: []Claim{}}
	s.standings(p.standings, full, seen)
	byHash := map[string]Row{}
	for _, r := range rows {
		byHash[string(r.Hash)] = r
	}
	for _, st := range p.statuses {
		r := byHash[st.hash]
		s.add(Claim{Page: st.page, Subject: r.File, Field: FieldStatus, Shown: st.status,
			Computed: string(r.Computed), SeenValue: string(r.SeenStatus)}, sameStatus)
	}
	return s
}

// standings judges every standing signal.html shows of an agent the
// audit read.
func (s *Site) standings(shown []shownStanding, full, seen signal.Report) {
	fullBy, seenBy := byName(full), byName(seen)
	var unread []string
	for _, st := range shown {
		a, known := fullBy[st.agent]
		if !known || a == nil {
			unread = append(unread, st.agent)
			continue
		}
		was := seenBy[st.agent]
		if was == nil {
			was = &signal.Agent{Tier: signal.TierProvisional}
		}
		s.add(Claim{Page: signalPage, Subject: st.agent, Field: FieldSignal, Shown: st.signal,
			Computed: formatSignal(a.Signal), SeenValue: formatSignal(was.Signal)}, sameSignal)
		s.add(Claim{Page: signalPage, Subject: st.agent, Field: FieldTier, Shown: st.tier,
			Computed: a.Tier, SeenValue: was.Tier}, nil)
	}
	if len(unread) > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%s shows %d agent(s) verify did not read (not named in AGENTS.md, or a name two agents share): %s",
			signalPage, len(unread), strings.Join(unread[:min(len(unread), 5)], ", ")))
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
