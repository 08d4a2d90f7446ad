package site

// The keys of the pages of the whole mesh: the home page, the agents'
// list and each agent's page, the peers, SIGNAL, the validations given
// and 404.html. Each is made from the view the page's template is
// rendered with, the view's values encoded whole where they are a
// handful (keyOf, appendReflect: a field added to a Peer or a Standing
// is in the key without a line here), and from what the template reaches
// through the view's Node and methods. TestEveryInputOfAPageIsInItsKey
// changes every field of a node and fails for a page whose bytes change
// while its key does not.

// viewParts are what every page's key holds of its view: the chrome,
// the page's place, title, navigation and description.
func viewParts(v *view) []any {
	return append(chromeParts(v), v.Root, v.Title, v.Nav, v.Desc)
}

// homeKey covers the home page: its view (the newest traces and
// validations, the top standings, the counts, the timeline and the
// graph), the node's figures it shows, and each agent it names as the
// page links and describes it.
func homeKey(n *Node, v *view) string {
	h := &v.Home
	parts := append(viewParts(v), n.Signal, n.Tier, n.RulesSummary, len(n.Others), len(n.Traces), len(n.Given), n.Peers,
		h.Latest, h.Votes, h.Top, h.TopSignal, h.Validated, h.Received, h.Active, v.Timeline, v.Graph)
	if h.Self != nil {
		parts = append(parts, h.Self.Page())
	}
	for _, t := range h.Latest {
		parts = append(parts, v.Who(t.Agent))
	}
	for _, vote := range h.Votes {
		parts = append(parts, v.Who(vote.Validator), v.AgentLink(vote.Agent))
	}
	for _, s := range h.Top {
		parts = append(parts, v.AgentLink(s.Agent))
	}
	for _, p := range n.Peers {
		parts = append(parts, v.AgentLink(p.Name))
	}
	return keyOf(appendGraphLinks(parts, v)...)
}

// appendGraphLinks adds the link of each agent the view's graph names.
func appendGraphLinks(parts []any, v *view) []any {
	for _, g := range v.Graph.Nodes {
		parts = append(parts, v.AgentLink(g.Agent))
	}
	return parts
}

// agentsKey covers the list of agents: each agent's row.
func agentsKey(n *Node, v *view) string {
	parts := append(viewParts(v), len(n.Agents))
	for _, a := range n.Agents {
		parts = append(parts, a.Name, a.Slug, a.Self, a.Standing, a.Peer, len(a.Own), len(a.Refs), len(a.Gave))
	}
	return keyOf(parts...)
}

// peersKey covers the peers' page: every peer and every dispute, with the
// links of the agents they name.
func peersKey(n *Node, v *view) string {
	parts := append(viewParts(v), n.Peers, n.Disputes)
	for _, p := range n.Peers {
		parts = append(parts, v.AgentLink(p.Name))
	}
	for _, d := range n.Disputes {
		parts = append(parts, v.AgentLink(d.Agent))
	}
	return keyOf(parts...)
}

// signalKey covers the SIGNAL page: the rule set, every standing with
// its agent's link, and the graph.
func signalKey(n *Node, v *view) string {
	parts := append(viewParts(v), n.Agent, n.Rules, n.RulesSummary, n.Signals, v.Graph)
	for _, s := range n.Signals {
		parts = append(parts, v.AgentLink(s.Agent))
	}
	return keyOf(appendGraphLinks(parts, v)...)
}

// validationsKey covers a page of the validations given: its place among
// the pages and its rows, and on the first the tally by agent.
func validationsKey(n *Node, v *view) string {
	parts := append(viewParts(v), v.Pager, len(n.Given))
	for _, vote := range v.Pager.Votes {
		parts = append(parts, v.AgentLink(vote.Agent))
	}
	if v.Pager.Number == 1 {
		for _, g := range givenByAgent(n.Given) {
			parts = append(parts, g, v.AgentLink(g.Agent))
		}
	}
	return keyOf(parts...)
}

// agentPageKey covers an agent's page: the agent, its SIGNAL and polling,
// our identity on ours, and the first traces and validations it lists.
func agentPageKey(n *Node, v *view) string {
	a := v.Agent
	parts := append(viewParts(v), a.Name, a.Slug, a.URL, a.Self, a.ManifestRead(), a.Peer, a.Standing, a.Feed(),
		len(a.Own), len(a.Refs), len(a.Gave))
	if a.Self {
		parts = append(parts, n.Identity, v.Published(identityFile))
	}
	for _, t := range firstN(a.Own, agentTraces) {
		parts = append(parts, t.File, t.Title, t.Status, t.Seq, t.Submitted.UnixNano(), t.Body)
	}
	for _, r := range firstN(a.Refs, agentTraces) {
		parts = refRowParts(parts, v, r)
	}
	for _, vote := range firstN(a.Gave, agentGave) {
		parts = append(parts, *vote, v.AgentLink(vote.Agent))
	}
	return keyOf(parts...)
}

// notFoundKey covers 404.html: the chrome, from the node's URL.
func notFoundKey(n *Node, idx *index) string {
	return keyOf(idx.chromeKey, n.URL, n.Agent)
}
