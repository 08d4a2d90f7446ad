package signal

import (
	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
)

// DisputedAgents says which agent of a report a dispute is about, as the
// mismatch rule reads it (docs/protocol.md §7.4): by its agent_url, else
// by a name only one agent of the mesh goes by. Whoever else weighs a
// dispute by the agent it names (the heartbeat's take-down) asks it, so
// that it and SIGNAL never disagree on whom a dispute is about.
type DisputedAgents struct {
	names agentNames
	keyOf []string  // agent id → agent key
	keys  agentKeys // trace URL → agent key, memoized
}

// DisputedAgentsOf indexes the agents of r: every agent the mesh it was
// computed from knows, each under the key the mesh gave it.
func DisputedAgentsOf(r Report) DisputedAgents {
	ids := make(map[string]int, len(r.Agents))
	keyOf := make([]string, len(r.Agents))
	names := make(map[string]string, len(r.Agents))
	keys := agentKeys{}
	for id, a := range r.Agents {
		k := keys.key(a.Agent, a.URL)
		ids[k], keyOf[id], names[k] = id, k, a.Agent
	}
	return DisputedAgents{names: newAgentNames(ids, keyOf, names), keyOf: keyOf, keys: keys}
}

// About reports whether d is about the agent that publishes under name at
// url (a trace's Agent and AgentURL): false for a dispute naming an agent
// the report does not know.
func (x DisputedAgents) About(d ledger.Dispute, name, url string) bool {
	id, ok := x.names.disputed(d, x.keys.key)
	return ok && x.keyOf[id] == x.keys.key(name, url)
}

// Names reports whether d names the agent that publishes under name at
// url, reading d as DisputedAgents does but without a report: by its
// agent_url when it gives one (compared as AGENTS.md lines are), else by
// its agent name, without case. It is stricter than About (an agent_url
// no agent has never falls back to the name), and it is for readers that
// must say whom a dispute is about whether SIGNAL knows the agent or
// not: the site's list of the node's own disputes (an agent whose files
// only ever mismatched is in no report), and an author's dispute of its
// own trace under a rule set this node does not implement.
func Names(d ledger.Dispute, name, url string) bool {
	if d.AgentURL != "" {
		return url != "" && SameURL(d.AgentURL, url)
	}
	n := strings.ToLower(strings.TrimSpace(d.Agent))
	return n != "" && n == strings.ToLower(strings.TrimSpace(name))
}

// SameURL reports whether a and b are one trace URL, compared as
// AGENTS.md lines are (roster.NormalizeURL: scheme and host without case,
// without a default port, one trailing slash), as Names compares an
// agent_url. It is for readers that compare a dispute's URLs without a
// report: the site's test of whether a published dispute is the node's.
func SameURL(a, b string) bool {
	return normalURL(a) == normalURL(b)
}
