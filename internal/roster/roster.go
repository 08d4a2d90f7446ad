// Package roster reads and writes AGENTS.md, the list of agents a node
// knows. It reads the seed's pipe layout and the markdown table layout and
// writes the seed's layout. Peers' AGENTS.md files are gossip and therefore
// untrusted: every name and URL is checked, and nothing here fetches or
// trusts a URL. It does no I/O and imports nothing else of this module.
package roster

import "fmt"

// FileName is the name every agent publishes the agents it knows under,
// at the root of its trace URL (docs/protocol.md §4).
const FileName = "AGENTS.md"

// Agent is one known agent.
type Agent struct {
	Name   string
	URL    string // trace URL, always ending in "/"
	Joined string // as written, usually YYYY-MM-DD
	Signal string // table layout only, as written
	Tier   string // table layout only
}

// Problem is a line that was skipped, with why.
type Problem struct {
	Line   int
	Reason string
}

// String is the problem as every command that reads the node's AGENTS.md
// shows it, file and line first as a compiler says it:
// "AGENTS.md:3: not an agent line (no '|'); line skipped". A skipped line's
// agent is never polled, so no command may keep it to a log.
func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s; line skipped", FileName, p.Line, p.Reason)
}
