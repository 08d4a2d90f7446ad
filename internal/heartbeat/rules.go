package heartbeat

import (
	"errors"

	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/signal"
)

// compareRules notes in the summary our rule set and every peer whose
// MANIFEST.md declares another (docs/decisions.md, Rule sets): two nodes
// computing with different rules disagree on statuses and SIGNAL, and a
// person must see why rather than two numbers.
func (n *job) compareRules(peers []peer) {
	d, err := signal.ParseFounders(n.snap.Founders)
	if err != nil {
		return
	}
	n.sum.Rules = d.Rules
	_, known := signal.RulesNamed(d.Rules)
	n.sum.RulesUnknown = !known
	for _, p := range peers {
		c, ok := n.state.Cursors[p.url]
		if !ok {
			continue
		}
		if note := signal.RulesNote(p.name, d.Rules, c.Rules); note != "" {
			_, k := signal.RulesNamed(c.Rules)
			n.sum.RulesDiffer = append(n.sum.RulesDiffer, report.RulesPeer{Peer: p.name, URL: p.url, Rules: c.Rules, Known: k, Note: note})
		}
	}
}

// unknownRules returns the error saying our FOUNDERS.md names rules this
// node does not implement, or nil when err is another.
func unknownRules(err error) *signal.UnknownRulesError {
	var ue *signal.UnknownRulesError
	if errors.As(err, &ue) {
		return ue
	}
	return nil
}
