package node

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/meshnode/meshnode/internal/roster"
)

// Known is an agent the node knows of: listed in its AGENTS.md, or learned
// by gossip in an earlier heartbeat (a cursor with LearnedFrom).
type Known struct {
	Name   string
	URL    string
	Listed bool // in AGENTS.md; otherwise learned by gossip
}

// Known lists the agents the node knows, the one list the heartbeat polls,
// `meshnode peers` shows and the site pages: AGENTS.md's in file order,
// then those learned by gossip by URL; each URL once, under the first name
// it was given; never the node itself (self, its URL). The heartbeat's
// name binding (docs/decisions.md, "Names") then decides which of them
// may keep their names.
func (s *Snapshot) Known(self string) []Known {
	self, _ = roster.NormalizeURL(self)
	seen := map[string]bool{self: true}
	var out []Known
	for _, a := range s.Agents {
		if !seen[a.URL] {
			seen[a.URL] = true
			out = append(out, Known{Name: a.Name, URL: a.URL, Listed: true})
		}
	}
	for _, url := range s.Cursors.SortedURLs() {
		if c := s.Cursors.Cursors[url]; !seen[url] && c.LearnedFrom != "" {
			seen[url] = true
			out = append(out, Known{Name: c.Agent, URL: url})
		}
	}
	return out
}

// readAgents reads the node's own AGENTS.md, nil when there is none. A
// symbolic link is refused, never followed (its target could be any file
// of the machine), and at most MaxTopFileBytes are read.
func readAgents(dir string) ([]byte, error) {
	data, err := ReadFile(dir, AgentsFile, MaxTopFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, ErrSymlink):
		return nil, fmt.Errorf("refusing to read %w: replace it with the file itself", err)
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", AgentsFile, err)
	}
	return data, nil
}
