package signal

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/validation"
)

// Compute resolves every trace and computes every agent's SIGNAL and
// standing (docs/decisions.md, Standing).
//
// Standing is a closure over the public files: the founders have it;
// each round evaluates every trace counting only the votes of agents with
// standing, and admits every agent the rule set admits (Rules.admits:
// SIGNAL EstablishedAt, and from mesh-2026-2 on passes from two agents
// with standing); it stops when a round admits nobody. An agent once
// admitted keeps standing for the rest of the closure, unless, under
// mesh-2026-3, agents with standing dispute enough of its files (bar):
// it then loses standing for good and the round counts again without its
// votes. Each round admits or bars someone, never twice the same, so the
// rounds always end (at most two per agent). Nothing in
// it depends on when or in what order files were read; the times files
// state only choose between a validator's votes on one trace (addVotes)
// and give the day a vote counts on (voteDay).
//
// Under rules that assign traces (Rules.JurySize), each trace's jury is
// drawn first (assign.go), from pools that are themselves closures over
// the files before each epoch, and a vote outside the jury counts for
// nothing in any round.
//
// in.Rules must name a rule set this node implements (FromSnapshot checks
// it); an unknown name computes nothing but the name.
func Compute(in Input) Report { return compute(in, nil, nil) }

// compute is Compute, with the pools of past epochs taken from and kept
// in cache (nil: none), and the report's results only those of the
// listings keep accepts (nil: all).
func compute(in Input, cache *Pools, keep func(*ledger.Trace) bool) Report {
	rules, ok := RulesNamed(cmp.Or(in.Rules, DefaultRules))
	if !ok {
		return Report{Rules: in.Rules}
	}
	m := newMesh(in, rules)
	if rules.JurySize > 0 {
		m.assign(newAssigner(in, rules, cache), math.MaxInt64)
	}
	c := m.closure()
	rep := Report{Rules: rules.Name, Rounds: c.rounds}
	o, has := c.outcome, c.has
	rep.Agents = sortedAgents(m.tally(o, c.admitted, c.barred, m.mismatchesOf(has)))
	rep.Traces = m.sortedResults(o, keep)
	rep.Trust = m.trust(has)
	return rep
}

// closed is the end of the standing closure: the last round's outcome,
// who has standing, each agent's admission round (-1: none), who
// mismatches barred, and how many rounds ran.
type closed struct {
	outcome  outcome
	has      []bool
	admitted []int
	barred   []bool
	rounds   int
}

// closure runs the standing closure of Compute over the mesh.
func (m *mesh) closure() closed {
	c := closed{has: make([]bool, len(m.keyOf)), admitted: make([]int, len(m.keyOf)), barred: make([]bool, len(m.keyOf))}
	for id, k := range m.keyOf {
		c.admitted[id] = -1
		if m.founders[k] {
			c.admitted[id], c.has[id] = 0, true
		}
	}
	for {
		c.rounds++
		c.outcome = m.evaluate(c.has, c.outcome)
		if m.bar(c.has, c.barred, c.admitted) {
			continue // count the votes again without those barred
		}
		if !m.admit(c.outcome, c.has, c.barred, c.admitted, c.rounds) {
			return c
		}
	}
}

// admit gives standing to every agent the outcome admits
// (Rules.admits) and that mismatches did not bar, and reports whether
// anyone was admitted.
func (m *mesh) admit(o outcome, has, barred []bool, rounds []int, round int) bool {
	added := false
	for id, s := range m.signals(o) {
		if !has[id] && !barred[id] && m.rules.admits(s, o.admitters[id]) {
			rounds[id], has[id] = round, true
			added = true
		}
	}
	return added
}

// mesh is the input deduplicated: one trace per hash, one vote per
// validator per trace, self-validations dropped. Agents are identified
// by their trace URL where one is known (a name is only what a file
// says), else by name.
type mesh struct {
	traces   []*ledger.Trace       // one per hash, sorted by hash; the input's records, never written
	authors  []int                 // agent id of traces[i]'s author
	authorOf []int                 // agents entry of traces[i]'s author; while building
	points   []float64             // what traces[i] earns its author once validated
	ballots  [][]ballot            // traces[i]'s votes, by validator key
	ids      map[string]int        // agent key → agent id, an index of keyOf
	keyOf    []string              // agent id → agent key
	byHash   map[manifest.Hash]int // hash → index in traces
	votes    []keyedBallot         // every vote, each trace's by validator key, ascending (voter unset); while building
	names    map[string]string     // agent key → name as first written
	urls     map[string]string     // agent key → trace URL
	founders map[string]bool       // agent key → named in FOUNDERS.md
	agents   *agentTable           // every agent the files name, by entry
	rules    Rules
	// mismatches are the files agents disputed, by disputed agent and
	// claimed hash; only under rules that take standing for them.
	mismatches []mismatch
	// Copies, when the rules judge them (copies.go): per hash, the agent
	// keys of every lister and the listings after the first; per trace,
	// whether its bytes are copied and its listers' ids.
	listers   map[manifest.Hash][]string
	others    map[manifest.Hash][]*ledger.Trace
	copied    []bool
	listerIDs [][]int
	// juries are, under rules that assign (assign.go), each trace's
	// jurors' agent ids, highest weight first; nil otherwise. reserves
	// are, under rules with a reserve, the ranks after them whose votes
	// count too; empty otherwise. lates are, under rules with a late
	// reserve, each trace's late reserve (empty for a trace of a pool's
	// computation whose late epoch is not before the pool's: assign).
	juries, reserves, lates [][]int
}

// key is agentKey, memoized (agentTable): a mesh names the same few
// agents on every trace and vote.
func (m *mesh) key(name, url string) string { return m.agents.keys[m.agents.entry(name, url)] }

// agentKeys memoizes agentKey by URL: normalizing a URL parses it.
type agentKeys map[string]string

func (ks agentKeys) key(name, url string) string {
	if url == "" {
		return agentKey(name, url)
	}
	k, ok := ks[url]
	if !ok {
		k = agentKey(name, url)
		ks[url] = k
	}
	return k
}

// ballot is one validator's vote on one trace.
type ballot struct {
	voter   int // agent id
	pass    bool
	verdict bool  // read from a verdict in the validator's trace, not a validation file
	day     int64 // the UTC day it was cast (voteDay)
	copied  bool  // cast by a file two or more agents list (copies.go): it earns nothing
	outside bool  // cast by an agent not on the trace's jury (assign.go): it counts for nothing
}

func newMesh(in Input, rules Rules) *mesh {
	m := &mesh{
		rules:  rules,
		byHash: make(map[manifest.Hash]int, len(in.Traces)),
		agents: newAgentTable(),
	}
	// Names come first from the traces (the name the node polls the agent
	// by), then from FOUNDERS.md, and only then from what validation files
	// say of themselves.
	traces := [][]*ledger.Trace{in.Traces}
	if rules.CopiesEarnNothing {
		traces = append(traces, in.Copies)
	}
	m.addTraces(traces)
	fs := append([]Founder(nil), in.Founders...)
	sort.Slice(fs, func(i, j int) bool { return m.key(fs[i].Name, fs[i].URL) < m.key(fs[j].Name, fs[j].URL) })
	for _, f := range fs {
		if f.Name == "" && f.URL == "" {
			continue
		}
		e := m.agents.entry(f.Name, f.URL)
		m.agents.founder[e] = true
		m.agents.learn(e, f.Name, f.URL)
	}
	m.addVotes(in.Validations, m.verdictVotes())
	m.index()
	if rules.LoseAtMismatches > 0 {
		m.addDisputes(in.Disputes, traces)
	}
	return m
}

// index gives the agents the mesh learned their ids, by key, and lays
// the traces' authors and votes out as slices in trace order, so that
// each round of the closure walks them without hashing a key or parsing
// a URL.
func (m *mesh) index() {
	idOf := m.indexAgents()
	m.authors = make([]int, len(m.traces))
	m.points = make([]float64, len(m.traces))
	points := map[[2]string]float64{} // earningFor by type and category: a mesh has few of them
	for i, t := range m.traces {
		m.authors[i] = idOf[m.authorOf[i]]
		p, ok := points[[2]string{t.Type, t.Category}]
		if !ok {
			_, p = earningFor(t.Type, t.Category)
			points[[2]string{t.Type, t.Category}] = p
		}
		m.points[i] = p
	}
	m.authorOf = nil
	m.indexVotes(idOf)
	m.indexCopies()
}

// indexAgents numbers the agents the mesh learned by key, and returns
// each entry's agent id (-1: not learned).
func (m *mesh) indexAgents() []int {
	t := m.agents
	idOf := make([]int, len(t.keys))
	m.ids, m.names, m.urls, m.founders = map[string]int{}, map[string]string{}, map[string]string{}, map[string]bool{}
	for _, e := range t.sorted() {
		idOf[e] = -1
		if !t.learned[e] {
			continue
		}
		k := t.keys[e]
		idOf[e] = len(m.keyOf)
		m.ids[k] = len(m.keyOf)
		m.keyOf = append(m.keyOf, k)
		m.names[k] = t.names[e]
		if t.urls[e] != "" {
			m.urls[k] = t.urls[e]
		}
		if t.founder[e] {
			m.founders[k] = true
		}
	}
	return idOf
}

// addTraces keeps one trace per hash of the lists, the first by seq and
// author key, and hands the others to addCopy. It keeps and sorts
// pointers into the lists, not copies of their records: under
// mesh-2026-4 a mesh is built once per epoch, over every trace before it.
func (m *mesh) addTraces(lists [][]*ledger.Trace) {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	ts := make([]*ledger.Trace, 0, n)
	for _, l := range lists {
		ts = append(ts, l...)
	}
	slices.SortFunc(ts, func(a, b *ledger.Trace) int {
		if c := strings.Compare(string(a.Hash), string(b.Hash)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
			return c
		}
		return strings.Compare(m.key(a.Agent, a.AgentURL), m.key(b.Agent, b.AgentURL))
	})
	// Grown once: appended one by one, 20,000 traces left 30 MB of
	// outgrown arrays for a site build's collector.
	m.traces = slices.Grow(m.traces, len(ts))
	m.authorOf = slices.Grow(m.authorOf, len(ts))
	for _, t := range ts {
		if t.Hash == "" || t.Agent == "" {
			continue
		}
		// Sorted by hash, a listing of bytes already kept follows the
		// kept one.
		if n := len(m.traces); n > 0 && m.traces[n-1].Hash == t.Hash {
			m.addCopy(t)
			continue
		}
		m.byHash[t.Hash] = len(m.traces)
		m.traces = append(m.traces, t)
		e := m.agents.entry(t.Agent, t.AgentURL)
		m.authorOf = append(m.authorOf, e)
		m.agents.learn(e, t.Agent, t.AgentURL)
	}
}

// addVotes keeps one vote per validator per trace (docs/decisions.md,
// "Validations that count"): of a validator's files on one trace, the one
// it says it wrote last, and of two written at the same time, a fail, the
// conservative reading. The vote counts on the day that file says it was
// written (voteDay). A validation that does not count
// (validation.Counted), of a trace not seen, of one's own trace or by
// nobody is passed over. verdicts are the votes read from verdict traces
// (verdictVotes), weighed like files.
func (m *mesh) addVotes(vals, verdicts []*ledger.Validation) {
	// Votes point into the files, so that sorting them moves pointers, not
	// records: under mesh-2026-4 a mesh is built once per epoch.
	// Each is sorted by what it holds, its validator's rank among the keys
	// (agentTable.ranks) and the time its file states, and reads its file
	// only to break a tie.
	type vote struct {
		v       *ledger.Validation
		agent   int // the validator's agents entry
		rank    int // its rank: ranks compare as keys do
		sec     int64
		nsec    int // ValidatedAt, as time.Compare compares it
		result  string
		verdict bool
	}
	vs := make([]vote, 0, len(vals)+len(verdicts))
	for fromVerdicts, files := range [][]*ledger.Validation{vals, verdicts} {
		for _, v := range files {
			r, err := v.Counted()
			if err != nil || (v.Validator == "" && v.ValidatorURL == "") {
				continue
			}
			vs = append(vs, vote{v: v, agent: m.agents.entry(v.Validator, v.ValidatorURL), sec: v.ValidatedAt.Unix(), nsec: v.ValidatedAt.Nanosecond(),
				result: r, verdict: fromVerdicts == 1})
		}
	}
	rank := m.agents.ranks()
	for i := range vs {
		vs[i].rank = rank[vs[i].agent]
	}
	slices.SortFunc(vs, func(a, b vote) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		if c := cmp.Compare(a.sec, b.sec); c != 0 {
			return c
		}
		if c := cmp.Compare(a.nsec, b.nsec); c != 0 {
			return c
		}
		if a.result != b.result {
			return passFirst(a.result, b.result)
		}
		if a.verdict != b.verdict {
			if a.verdict {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.v.Validator, b.v.Validator); c != 0 {
			return c
		}
		// Two files of one validator on one trace at one time with one
		// result differ at most in their file: under rules that judge
		// copies one may be copied, so which wins must not depend on the
		// order the node read them in.
		return strings.Compare(string(a.v.SourceHash), string(b.v.SourceHash))
	})
	all := make([]*ledger.Validation, len(vs))
	for i, kv := range vs {
		all[i] = kv.v
	}
	copied := m.copiedFiles(all)
	// In this order a validator's later file on a trace comes later, and
	// of two at one time the fail: the last one written wins. The order
	// is by validator key first, so each trace's votes arrive by key, a
	// validator's files on it one after another: its list stays sorted
	// with one vote per key.
	m.votes = make([]keyedBallot, 0, len(vs))
	newest := make([]int, len(m.traces)) // trace i's newest vote is m.votes[newest[i]-1]; 0: none yet
	for _, kv := range vs {
		v, ve := kv.v, kv.agent
		i, ok := m.byHash[v.TraceHash]
		if !ok || m.isSelf(v, ve, i) {
			continue
		}
		b := keyedBallot{i, ve, ballot{pass: kv.result == validation.ResultPass, verdict: kv.verdict, day: voteDay(v.ValidatedAt, m.traces[i].Submitted),
			copied: copied[v.SourceHash]}}
		if j := newest[i] - 1; j >= 0 && m.votes[j].agent == ve {
			m.votes[j] = b
		} else {
			m.votes = append(m.votes, b)
			newest[i] = len(m.votes)
		}
		m.agents.learn(ve, v.Validator, v.ValidatorURL)
	}
}

// passFirst orders two different results of one validator's files at
// one time: the pass first, so that the fail, coming after, wins; two
// results neither of which is a pass are alike.
func passFirst(a, b string) int {
	switch {
	case a == validation.ResultPass:
		return -1
	case b == validation.ResultPass:
		return 1
	}
	return 0
}

// keyedBallot is a vote while the mesh is built: the index of its trace
// and its validator's agents entry, before agent ids are given (index).
type keyedBallot struct {
	trace  int
	agent  int
	ballot ballot
}

// indexVotes lays the votes out by trace in one array, each trace's in
// the order addVotes kept them, so that a mesh holds one array of ballots
// rather than one per trace.
func (m *mesh) indexVotes(idOf []int) {
	start := make([]int, len(m.traces)+1) // trace i's votes are all[start[i]:start[i+1]]
	for _, kb := range m.votes {
		start[kb.trace+1]++
	}
	for i := range m.traces {
		start[i+1] += start[i]
	}
	all := make([]ballot, len(m.votes))
	next := slices.Clone(start[:len(m.traces)])
	for _, kb := range m.votes {
		kb.ballot.voter = idOf[kb.agent]
		all[next[kb.trace]] = kb.ballot
		next[kb.trace]++
	}
	m.ballots = make([][]ballot, len(m.traces))
	for i := range m.traces {
		m.ballots[i] = all[start[i]:start[i+1]:start[i+1]]
	}
	m.votes = nil
}

// isSelf reports a validation by the validator with agents entry e of
// its own trace i: the same trace URL (the same agent key), or the same
// name; when the rules judge copies, of bytes the validator lists too.
func (m *mesh) isSelf(v *ledger.Validation, e, i int) bool {
	t := m.traces[i]
	if v.ValidatorURL != "" && t.AgentURL != "" && e == m.authorOf[i] {
		return true
	}
	if m.lists(t.Hash, m.agents.keys[e]) {
		return true
	}
	return v.Validator != "" && strings.EqualFold(strings.TrimSpace(v.Validator), strings.TrimSpace(t.Agent))
}

// listing is a record a result is made of: trace index trace as listed in
// t (the trace itself, or another agent's listing of its bytes), by the
// agent with id agent, with what results sort by beside it: t's seq and
// hash, and the rank of the agent's name (sortedResults).
type listing struct {
	trace int
	t     *ledger.Trace
	agent int
	seq   manifest.Seq
	hash  manifest.Hash
	rank  int
}

// listed is every record a result is made of, each trace then the other
// listings of copied bytes (listedCopies).
func (m *mesh) listed() []listing {
	n := len(m.traces)
	for _, others := range m.others {
		n += len(others)
	}
	out := make([]listing, len(m.traces), n)
	for i, t := range m.traces {
		out[i] = listing{trace: i, t: t, agent: m.authors[i], seq: t.Seq, hash: t.Hash}
	}
	return m.listedCopies(out)
}

// result is trace i's resolution in the outcome, as listed in record t
// (the trace itself, or another agent's listing of its bytes).
func (m *mesh) result(o outcome, i int, t *ledger.Trace) TraceResult {
	r := TraceResult{Hash: t.Hash, URL: t.URL, Seq: t.Seq,
		Passing: o.passing[i], Seen: o.seen[i], Uncounted: o.uncounted[i], Unassigned: o.unassigned[i], Status: o.status[i], Copy: m.copied[i],
		Jury: m.namesOf(m.juries, i), Reserve: m.reserveNames(m.reserves, i), LateReserve: m.reserveNames(m.lates, i)}
	if m.rules.LateReserve > 0 {
		r.LateReserveFrom = epochStart(EpochOf(m.traces[i].Submitted) + int64(m.rules.AwayAfter))
	}
	if r.Seen > 0 {
		r.Signal = float64(r.Passing) / float64(r.Seen)
	}
	return r
}

// voteDay is the UTC day a vote counts on for the day bound: the day its
// validation says it was cast, but never before the trace's own stated
// submission, so backdating a validation before its trace gains nothing.
// A vote that states no time counts on the trace's day; neither: day 0.
func voteDay(at, submitted time.Time) int64 {
	if at.IsZero() || at.Before(submitted) {
		at = submitted
	}
	if at.IsZero() {
		return 0
	}
	return at.Unix() / 86400
}

// status applies the resolution rule to the votes that count, all of
// them by agents with standing (Established or higher): the majority
// decides, and a tie is contested.
func status(passing, seen int) manifest.Status {
	switch {
	case seen == 0:
		return manifest.StatusPending
	case 2*passing > seen:
		return manifest.StatusValidated
	case 2*passing < seen:
		return manifest.StatusFailed
	default:
		return manifest.StatusContested
	}
}

// agentKey identifies an agent: by its trace URL when known, since a
// name is whatever a file says and a URL is where the agent publishes;
// by name (case-insensitive: peers write noobAgent and noobagent) when
// no URL is known.
func agentKey(name, url string) string {
	if url != "" {
		return "url " + normalURL(url)
	}
	return "name " + strings.ToLower(strings.TrimSpace(name))
}

// normalURL is url as AGENTS.md lines are compared: scheme and host
// lowercased, one trailing slash.
func normalURL(url string) string {
	if u, err := roster.NormalizeURL(url); err == nil {
		return u
	}
	return strings.TrimRight(strings.TrimSpace(url), "/") + "/"
}
