package site

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
)

// loadConfig takes the node's agent and URL from mesh.yaml when there is
// one (the heartbeat's source of truth). A node without mesh.yaml keeps
// MANIFEST.md's agent and url, so a plain folder of traces still builds.
func loadConfig(dir string, n *Node) error {
	_, err := os.Stat(filepath.Join(dir, node.ConfigFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	cfg, err := config.Load(dir)
	if err != nil {
		return fmt.Errorf("load node config: %w", err)
	}
	n.Agent, n.URL = firstOf(cfg.Agent, n.Agent), firstOf(cfg.URL, n.URL)
	return nil
}

// applySignal sets, from SIGNAL as internal/signal computed it (from the
// same public files any node could read), the rule set, the standings,
// the trust graph, our SIGNAL and tier, and each trace's resolved status
// and passing/seen count, ours and the peers' alike.
func applySignal(n *Node, rep signal.Report) {
	n.Tier = signal.TierProvisional
	if r, ok := signal.RulesNamed(rep.Rules); ok {
		n.Rules, n.RulesSummary = r.Name, r.Summary
	}
	for _, e := range rep.Trust {
		n.Trust = append(n.Trust, TrustEdge{Validator: e.Validator, Agent: e.Agent, Votes: e.Pass + e.Fail})
	}
	for _, a := range rep.Agents {
		n.Signals = append(n.Signals, standingOf(a))
	}
	if self, ok := signal.Self(rep, n.URL); ok {
		n.Signal, n.Tier = self.Signal, self.Tier
	}
	results := make(map[manifest.Hash]signal.TraceResult, len(rep.Traces))
	for _, r := range rep.Traces {
		results[r.Hash] = r
	}
	for _, t := range n.Traces {
		if r, ok := results[t.Hash]; ok {
			t.Status, t.Passing, t.Seen, t.Copy = r.Status, r.Passing, r.Seen, r.Copy
		}
	}
	for _, r := range n.Others {
		if res, ok := results[r.Hash]; ok {
			r.Status, r.Passing, r.Seen, r.Copy = res.Status, res.Passing, res.Seen, res.Copy
		}
	}
}

func standingOf(a signal.Agent) Standing {
	s := Standing{Agent: a.Agent, Signal: a.Signal, Tier: a.Tier, Validated: a.TracesValidated, Validations: a.ValidationsAuthored}
	for _, e := range a.Breakdown {
		s.Breakdown = append(s.Breakdown, Earning{Words: signal.Describe(e.Reason, e.Count), Points: e.Points})
	}
	return s
}
