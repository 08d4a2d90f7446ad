package signal

import "github.com/meshnode/meshnode/internal/ledger"

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
