package setup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/signal"
)

// checkStanding says whether the node may validate, computed as the
// heartbeat computes it (signal.ProgressOf over the node's public files),
// and what to do next when it may not. No standing is a warning: a new
// node is not broken, it has work to do.
func (n *doctorRun) checkStanding() Finding {
	f := Finding{Check: "standing"}
	in, err := signal.Load(n.o.Dir, n.cfg.Agent, n.cfg.URL)
	var fe *signal.FoundersError
	var ue *signal.UnknownRulesError
	switch {
	case errors.As(err, &fe):
		f.Status, f.Message = StatusFail, fe.Error()
		f.Fix = "one 'name | trace_url' line per founder; or copy the mesh's FOUNDERS.md again from any of its nodes"
		return f
	case errors.As(err, &ue):
		f.Status, f.Message = StatusFail, ue.Error()
		f.Fix = "until then the heartbeat publishes every trace as pending and validates nothing"
		return f
	case err != nil:
		f.Status, f.Message = StatusWarn, "cannot compute standing: "+unwrapPath(err)
		f.Fix = "see the state findings; the next heartbeat rewrites what it can"
		return f
	}
	p := signal.ProgressOf(signal.Compute(in), n.cfg.URL)
	if p.HasStanding() {
		f.Status, f.Message = StatusOK, p.Reason()
		return f
	}
	f.Status, f.Message, f.Fix = StatusWarn, p.Reason(), p.Next()
	return f
}

// checkFounders compares the node's FOUNDERS.md with the copy its Pages
// URL serves (where joining nodes copy it from) and with each peer's: a
// peer that holds another declaration computes another mesh's SIGNAL
// (docs/decisions.md, Standing). Differences are warnings, for people to
// settle; nothing is adopted.
func (n *doctorRun) checkFounders(ctx context.Context) []Finding {
	ours, err := os.ReadFile(filepath.Join(n.o.Dir, node.FoundersFile))
	if errors.Is(err, os.ErrNotExist) {
		return []Finding{{Check: "founders", Status: StatusWarn, Message: "no FOUNDERS.md: this node follows no mesh's founders",
			Fix: "copy the mesh's FOUNDERS.md from any of its nodes, or found a mesh with 'meshnode init --founder'"}}
	}
	if err != nil {
		return []Finding{{Check: "founders", Status: StatusWarn, Message: "cannot read FOUNDERS.md: " + unwrapPath(err)}}
	}
	hash := manifest.HashBytes(ours)
	targets := []roster.Agent{{Name: "this node's Pages", URL: n.pagesURL}}
	if data, err := os.ReadFile(filepath.Join(n.o.Dir, AgentsFile)); err == nil {
		peers, _ := roster.Parse(data)
		targets = append(targets, withoutSelf(peers, n.cfg.URL)...)
	}
	out := n.unpolledFounders(ours, targets[1:])
	served := n.fetchFounders(ctx, targets)
	out = append(out, rulesFindings(ours, targets, served)...)
	agree := 0
	for i, t := range targets {
		switch got := served[i]; {
		case got.err != nil && i == 0:
			out = append(out, Finding{Check: "founders", Status: StatusWarn, Message: "Pages does not serve FOUNDERS.md: " + got.err.Error(),
				Fix: "commit and push FOUNDERS.md; joining nodes copy it from " + n.pagesURL + node.FoundersFile})
		case got.err != nil && fetch.IsKind(got.err, fetch.KindNotFound):
			out = append(out, Finding{Check: "founders", Status: StatusWarn, Message: fmt.Sprintf("peer %s serves no FOUNDERS.md: it names no founders, or runs an older node", t.Name),
				Fix: "ask its operator to copy this mesh's FOUNDERS.md"})
		case got.err != nil:
			// Unreachable peers are the peers check's finding.
		case got.hash != hash && i == 0:
			out = append(out, Finding{Check: "founders", Status: StatusWarn, Message: "Pages serves another FOUNDERS.md (" + short(got.hash) + ") than the local one (" + short(hash) + ")",
				Fix: "commit and push FOUNDERS.md, then wait for the Pages deploy"})
		case got.hash != hash:
			out = append(out, Finding{Check: "founders", Status: StatusWarn,
				Message: fmt.Sprintf("peer %s holds another FOUNDERS.md (%s; ours is %s): it computes another mesh's SIGNAL", t.Name, short(got.hash), short(hash)),
				Fix:     "agree on one declaration and copy it byte for byte to every node of the mesh"})
		default:
			agree++
		}
	}
	summary := Finding{Check: "founders", Status: StatusOK,
		Message: fmt.Sprintf("FOUNDERS.md %s: the same bytes at %d of %d place(s) checked (Pages and peers)", short(hash), agree, len(targets))}
	return append([]Finding{summary}, out...)
}

// unpolledFounders warns about each founder the node does not poll: it
// never sees that founder's validations, of its own traces or anyone's.
func (n *doctorRun) unpolledFounders(decl []byte, peers []roster.Agent) []Finding {
	d, err := signal.ParseFounders(decl)
	if err != nil {
		return nil // the standing check reports it
	}
	polled := map[string]bool{}
	if self, err := roster.NormalizeURL(n.cfg.URL); err == nil {
		polled[self] = true
	}
	for _, p := range peers {
		polled[p.URL] = true
	}
	var out []Finding
	for _, f := range d.Founders {
		if !polled[f.URL] {
			out = append(out, Finding{Check: "founders", Status: StatusWarn,
				Message: fmt.Sprintf("founder %s (%s) is not in AGENTS.md: this node never sees its validations, of its own traces or anyone's", f.Name, f.URL),
				Fix:     fmt.Sprintf("add the line '%s | %s' to AGENTS.md", f.Name, f.URL)})
		}
	}
	return out
}

type servedFounders struct {
	hash  manifest.Hash
	rules string // the rule set the served file names; "" when it does not parse
	err   error
}

// rulesFindings warns about each place that serves a FOUNDERS.md naming
// another rule set than ours (docs/decisions.md, Rule sets): that node
// computes statuses and SIGNAL by other rules.
func rulesFindings(ours []byte, targets []roster.Agent, served []servedFounders) []Finding {
	d, err := signal.ParseFounders(ours)
	if err != nil {
		return nil // the standing check reports it
	}
	var out []Finding
	for i, t := range targets {
		if served[i].err != nil {
			continue
		}
		if note := signal.RulesNote(t.Name, d.Rules, served[i].rules); note != "" {
			out = append(out, Finding{Check: "rules", Status: StatusWarn, Message: note,
				Fix: "a mesh upgrades by changing the rules line of FOUNDERS.md on every node, each running a meshnode that implements it"})
		}
	}
	return out
}

func (n *doctorRun) fetchFounders(ctx context.Context, targets []roster.Agent) []servedFounders {
	out := make([]servedFounders, len(targets))
	var g errgroup.Group
	g.SetLimit(peerConcurrency)
	for i, t := range targets {
		g.Go(func() error {
			resp, err := n.fetcher.Get(ctx, fetch.Request{URL: t.URL + node.FoundersFile, MaxBytes: signal.MaxFoundersBytes, Within: t.URL})
			if err != nil {
				out[i].err = err
				return nil
			}
			out[i].hash = manifest.HashBytes(resp.Body)
			if d, err := signal.ParseFounders(resp.Body); err == nil {
				out[i].rules = d.Rules
			}
			return nil
		})
	}
	_ = g.Wait() // the goroutines report through out
	return out
}

// short is a hash cut to its first 12 hex digits, enough to tell two apart.
func short(hash manifest.Hash) string {
	return "sha256:" + hash.Hex(12)
}
