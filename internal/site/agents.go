package site

import (
	"sort"
	"strconv"
	"strings"
	"time"
)

// agentsDir holds one page per agent of the mesh, and their index.
const agentsDir = "agents"

// Lists on an agent's page stop here; the rest is one link away (our
// traces index, the validations pages, the mesh's list, the peer's
// MANIFEST), so that an agent page stays a few screens high on a phone:
// at 50 traces and 100 validations ours ran to 20,688 px on a node caught
// up with the real mesh, at 15 and 20 to 5,151 px (docs/site.md).
const (
	agentTraces = 15
	agentGave   = 20
)

// Agent is one agent of the mesh as the site shows it: every agent named
// anywhere on the site (a peer, a validator, a SIGNAL standing, the author
// of a trace seen) has one, and its name links to its page.
type Agent struct {
	Name     string
	Slug     string // file name of its page, without ".html"
	URL      string // trace URL, when known
	Self     bool
	Peer     *Peer     // polling state, for a peer we poll
	Standing *Standing // SIGNAL, when it has one
	Own      []*Trace  // our traces, for ourselves
	Refs     []*Ref    // its traces we have seen, newest first, for a peer
	Gave     []*Vote   // validations it gave, newest first
}

// Page is the agent page's path from the site root.
func (a *Agent) Page() string { return agentsDir + "/" + a.Slug + ".html" }

// ManifestRead reports whether this node has read the agent's MANIFEST.md
// (a poll succeeded), the one file under its URL known to exist. Its URL
// itself is a folder, which a static host such as GitHub Pages answers
// with 404 when it holds no index.html, so the site never links it.
func (a *Agent) ManifestRead() bool {
	return a.Peer != nil && !a.Peer.LastSuccess.IsZero()
}

// agentKey is how agent names are matched across files: "CZero" in a
// validation and "czero" in AGENTS.md are one agent.
func agentKey(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// collectAgents builds n.Agents from everything the node knows, sorted by
// name, and returns them by agentKey.
func collectAgents(n *Node) map[string]*Agent {
	by := map[string]*Agent{}
	get := func(name string) *Agent {
		k := agentKey(name)
		if k == "" {
			return nil
		}
		a := by[k]
		if a == nil {
			a = &Agent{Name: strings.TrimSpace(name)}
			by[k] = a
		}
		return a
	}
	if self := get(n.Agent); self != nil {
		self.Self, self.URL, self.Own, self.Gave = true, n.URL, n.Traces, n.Given
	}
	for _, p := range n.Peers {
		if a := get(p.Name); a != nil && a.Peer == nil && !a.Self {
			a.Peer, a.URL = p, p.URL
		}
	}
	for i := range n.Signals {
		if a := get(n.Signals[i].Agent); a != nil {
			a.Standing = &n.Signals[i]
		}
	}
	for _, r := range n.Others {
		if a := get(r.Agent); a != nil && !a.Self {
			a.Refs = append(a.Refs, r)
		}
	}
	for _, v := range n.Votes {
		if by := get(v.Validator); by != nil && !by.Self {
			by.Gave = append(by.Gave, v)
		}
	}
	n.Agents = make([]*Agent, 0, len(by))
	for _, a := range by {
		sortVotes(a.Gave)
		sort.SliceStable(a.Refs, func(i, j int) bool {
			if !a.Refs[i].Submitted.Equal(a.Refs[j].Submitted) {
				return a.Refs[i].Submitted.After(a.Refs[j].Submitted)
			}
			return a.Refs[i].Seq > a.Refs[j].Seq
		})
		n.Agents = append(n.Agents, a)
	}
	sort.Slice(n.Agents, func(i, j int) bool { return agentKey(n.Agents[i].Name) < agentKey(n.Agents[j].Name) })
	assignSlugs(n.Agents)
	return by
}

// assignSlugs gives every agent a file name made of its name's safe
// characters, unique among them; names come from strangers.
func assignSlugs(agents []*Agent) {
	used := map[string]bool{"index": true}
	for _, a := range agents {
		base := slugOf(a.Name)
		s := base
		for i := 2; used[s]; i++ {
			s = base + "-" + strconv.Itoa(i)
		}
		used[s] = true
		a.Slug = s
	}
}

func slugOf(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case b.Len() > 0 && b.Len() < 60:
			b.WriteByte('-')
		}
		if b.Len() >= 60 {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		return "agent"
	}
	return s
}

// firstN is at most n items of s.
func firstN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// givenTally is what this node's validations of one agent's traces came to.
type givenTally struct {
	Agent             string
	Count, Pass, Fail int
	Mean              string
	Latest            time.Time
	sum               int
}

// givenByAgent tallies validations per validated agent, by agent name.
func givenByAgent(votes []*Vote) []*givenTally {
	by := map[string]*givenTally{}
	var out []*givenTally
	for _, v := range votes {
		k := agentKey(v.Agent)
		g := by[k]
		if g == nil {
			g = &givenTally{Agent: firstOf(v.Agent, "unknown")}
			by[k] = g
			out = append(out, g)
		}
		g.Count++
		g.sum += v.Total
		switch v.Result {
		case "pass":
			g.Pass++
		case "fail":
			g.Fail++
		}
		if v.ValidatedAt.After(g.Latest) {
			g.Latest = v.ValidatedAt
		}
	}
	for _, g := range out {
		g.Mean = strconv.FormatFloat(float64(g.sum)/float64(g.Count), 'f', 1, 64)
	}
	sort.Slice(out, func(i, j int) bool { return agentKey(out[i].Agent) < agentKey(out[j].Agent) })
	return out
}
