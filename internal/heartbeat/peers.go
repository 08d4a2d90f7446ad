package heartbeat

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/meshnode/meshnode/internal/roster"
)

// AgentsFile is the node's list of known agents.
const AgentsFile = "AGENTS.md"

// peers returns the agents to poll: those in AGENTS.md, then those learned
// by gossip in earlier heartbeats, never the node itself, each URL once.
func (n *node) peers() ([]peer, error) {
	data, err := os.ReadFile(n.path(AgentsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", AgentsFile, err)
	}
	agents, problems := roster.Parse(data)
	for _, p := range problems {
		n.log.Warn("AGENTS.md line skipped", "line", p.Line, "reason", p.Reason)
	}
	self, _ := roster.NormalizeURL(n.cfg.URL)
	seen := map[string]bool{self: true}
	var out []peer
	for _, a := range agents {
		if !seen[a.URL] {
			seen[a.URL] = true
			out = append(out, peer{name: a.Name, url: a.URL})
		}
	}
	var learned []peer
	for url, c := range n.state.Cursors {
		if c.LearnedFrom != "" && !seen[url] {
			seen[url] = true
			learned = append(learned, peer{name: c.Agent, url: url})
		}
	}
	sort.Slice(learned, func(i, j int) bool { return learned[i].url < learned[j].url })
	return append(out, learned...), nil
}
