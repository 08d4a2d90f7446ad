package setup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/roster"
)

// checkPeers fetches every AGENTS.md peer's MANIFEST.md. An unreachable
// peer is a warning, not a failure: peers come and go, and the heartbeat
// already backs off from them (docs/protocol.md §9.1's circuit breaker).
func (n *doctorRun) checkPeers(ctx context.Context) []Finding {
	data, err := os.ReadFile(filepath.Join(n.o.Dir, AgentsFile))
	if err != nil {
		return []Finding{{Check: "peers", Status: StatusWarn, Message: "cannot read AGENTS.md: " + unwrapPath(err),
			Fix: "run 'meshnode init' or write AGENTS.md (name | trace_url | joined)"}}
	}
	peers, skipped := roster.Parse(data)
	out := skippedFindings(skipped)
	peers = withoutSelf(peers, n.cfg.URL)
	if len(peers) == 0 {
		return append(out, Finding{Check: "peers", Status: StatusWarn, Message: "AGENTS.md lists no peers: the node polls nobody",
			Fix: "add a line 'name | trace_url | joined' to AGENTS.md for each agent to follow"})
	}
	errs := n.reachPeers(ctx, peers)
	var unreached []Finding
	for i, p := range peers {
		if errs[i] != nil {
			unreached = append(unreached, Finding{Check: "peers", Status: StatusWarn,
				Message: fmt.Sprintf("peer %s unreachable: %v", p.Name, errs[i]),
				Fix:     "check the peer's trace_url in AGENTS.md; the heartbeat keeps retrying it on the backoff schedule"})
		}
	}
	reached := len(peers) - len(unreached)
	summary := Finding{Check: "peers", Status: StatusOK, Message: fmt.Sprintf("%d of %d peer(s) serve a MANIFEST.md", reached, len(peers))}
	return append(append([]Finding{summary}, out...), unreached...)
}

// skippedFindings fails doctor on each line of AGENTS.md that lists no
// agent: the heartbeat skips it, so whoever it meant is never polled.
func skippedFindings(skipped []roster.Problem) []Finding {
	var out []Finding
	for _, p := range skipped {
		out = append(out, Finding{Check: "peers", Status: StatusFail, Message: p.String(),
			Fix: "write the line as 'name | trace_url | joined' (trace_url an http(s) URL), or start it with '#' to keep it as a comment"})
	}
	return out
}

func (n *doctorRun) reachPeers(ctx context.Context, peers []roster.Agent) []error {
	errs := make([]error, len(peers))
	var g errgroup.Group
	g.SetLimit(peerConcurrency)
	for i, p := range peers {
		g.Go(func() error {
			_, errs[i] = n.fetcher.Get(ctx, fetch.Request{URL: p.URL + ManifestFile, MaxBytes: n.cfg.Limits.ManifestBytes, Within: p.URL})
			return nil
		})
	}
	_ = g.Wait() // the goroutines report through errs
	return errs
}

// withoutSelf drops the node's own line, which a copied AGENTS.md may hold.
func withoutSelf(peers []roster.Agent, self string) []roster.Agent {
	out := peers[:0:0]
	for _, p := range peers {
		if p.URL != self {
			out = append(out, p)
		}
	}
	return out
}
