package signal

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
)

// Own returns the resolved status of each trace published under url (the
// node's own trace URL), by hash.
func Own(r Report, url string) map[manifest.Hash]manifest.Status {
	out := map[manifest.Hash]manifest.Status{}
	for _, t := range r.Traces {
		if url != "" && strings.HasPrefix(t.URL, url) {
			out[t.Hash] = t.Status
		}
	}
	return out
}

// Self returns the agent whose trace URL is url; ok is false when the
// report does not know it (a node that published nothing yet).
func Self(r Report, url string) (Agent, bool) {
	if url == "" {
		return Agent{}, false
	}
	want := normalURL(url)
	for _, a := range r.Agents {
		if a.URL != "" && normalURL(a.URL) == want {
			return a, true
		}
	}
	return Agent{}, false
}

// Progress is where one agent stands on the way to standing, in the
// words the heartbeat, `meshnode score`, `check` and `doctor` all use, so
// they never disagree.
type Progress struct {
	Self     Agent    // the agent; zero when the report does not know it
	Rules    Rules    // the rule set the report was computed with
	Founders []string // the founders' names, sorted
	// Uncounted is the number of votes on the agent's traces by agents
	// without standing: they count for nothing.
	Uncounted int
}

// ProgressOf finds the agent at url in r.
func ProgressOf(r Report, url string) Progress {
	p := Progress{}
	p.Rules, _ = RulesNamed(r.Rules)
	p.Self, _ = Self(r, url)
	for _, a := range r.Agents {
		if a.Founder {
			p.Founders = append(p.Founders, a.Agent)
		}
	}
	sort.Strings(p.Founders)
	for _, t := range r.Traces {
		if url != "" && strings.HasPrefix(t.URL, url) {
			p.Uncounted += t.Uncounted
		}
	}
	return p
}

// HasStanding reports whether the agent may validate.
func (p Progress) HasStanding() bool { return p.Self.Standing }

// Reason says in one line why the agent has no standing, or how it has
// it.
func (p Progress) Reason() string {
	switch {
	case p.Self.StandingLost:
		return fmt.Sprintf("no standing: lost to hash mismatches: %d of your files, each disputed by %d agents with standing; rule set %s takes standing at %d",
			p.Self.Mismatches, DisputersPerMismatch, p.Rules.Name, p.Rules.LoseAtMismatches)
	case p.Self.Founder:
		return "standing: a founder (FOUNDERS.md)"
	case p.Self.Standing:
		return fmt.Sprintf("standing: SIGNAL %s (%s)", num(p.Self.Signal), p.Self.Tier)
	case len(p.Founders) == 0:
		return "no standing: FOUNDERS.md names no founders, so no agent's validations count"
	}
	s := fmt.Sprintf("no standing yet: SIGNAL %s of the %d standing needs; %d of your traces validated by agents with standing",
		num(p.Self.Signal), EstablishedAt, p.Self.TracesValidated)
	if p.Rules.AdmitAt > 0 {
		s += fmt.Sprintf("; passed by %d of the %d agents with standing rule set %s admits on", p.Self.Admitters, p.Rules.AdmitAt, p.Rules.Name)
	}
	if p.Uncounted > 0 {
		s += fmt.Sprintf("; %d validations of them by agents without standing count for nothing", p.Uncounted)
	}
	return s
}

// Next says what to do next to have standing; "" when the agent has it.
func (p Progress) Next() string {
	switch {
	case p.Self.StandingLost:
		return fmt.Sprintf("serve every file byte for byte as your MANIFEST.md hashes it (no line-ending or site-generator rewrite: docs/protocol.md §2.1); "+
			"standing returns once fewer than %d disputed files lie within your latest %d seqs, or peers verify the disputed files", p.Rules.LoseAtMismatches, MismatchWindow)
	case p.Self.Standing:
		return ""
	case len(p.Founders) == 0:
		return "to found a mesh, write FOUNDERS.md with one line naming this node, `name | trace_url` (what `meshnode init --founder` writes); " +
			"to join one, copy its FOUNDERS.md from any of its nodes (docs/setup.md, Standing)"
	case len(p.Founders) < p.Rules.AdmitAt:
		return fmt.Sprintf("rule set %s admits an agent only on the passes of %d agents with standing, and FOUNDERS.md names %d founder(s) (%s): "+
			"the mesh must name another founder in FOUNDERS.md on every node (docs/setup.md, Standing)", p.Rules.Name, p.Rules.AdmitAt, len(p.Founders), strings.Join(p.Founders, ", "))
	}
	return fmt.Sprintf("publish traces (`meshnode trace new`), list agents with standing (founders: %s) in your AGENTS.md so you see their validations, "+
		"and have one list you in its AGENTS.md so it polls and validates your traces; "+
		"each validated trace earns SIGNAL (knowledge pebble 2, knowledge rock 6, capability rock 10)", strings.Join(p.Founders, ", "))
}

// num writes a SIGNAL without needless decimals: 12, 12.5.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
