package signal

import (
	"bytes"
	"crypto/sha256"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// Validation by assignment (docs/decisions.md, Assignment; docs/protocol.md
// §8.8): under rules with a JurySize, each trace is judged by a jury drawn
// from the agents that had standing when the UTC day of its submitted time
// began, and only the jury's votes settle it and earn.

// JurySize is k, the most agents a trace is assigned to under
// mesh-2026-4: five, so that a trace keeps the three votes the issue asks
// for while two of its jurors are away, and a validator's load stays
// k × traces ÷ validators.
const JurySize = 5

// AwayAfterDays is AwayAfter under mesh-2026-5: a juror has the rest of
// its trace's day and the whole next day, at least 24 hours, to publish a
// validation (of any trace) before it counts as away. A node reading
// through relays sees a trace within minutes and one polling quiet peers
// within six hours; a validator that leaves is still drawn for two days,
// and one that returns is drawn again the day after it validates.
const AwayAfterDays = 2

// ReserveSize is the reserve of mesh-2026-6: the ranks k+1 … 2k of a
// trace's present-first rendezvous order, whose votes count as the jury's
// do. k more, so that a jury of which every member is away is still
// covered, and no more, so that a validator's seats at most double
// (docs/decisions.md, Assignment: "The reserve").
const ReserveSize = JurySize

// LateReserveSize is the late reserve of mesh-2026-7: the first k agents,
// the trace's author, jury and reserve excepted, of the present-first
// rendezvous order over the members of the trace's epoch's pool still in
// the pool of the epoch AwayAfterDays after it, by that epoch's away
// marks, whose votes count as the jury's when dated on or after that
// epoch began. k, so that a trace whose ten seats lost their validators
// on its day gets a jury's worth of seats the files show present
// (docs/decisions.md, Assignment: "The late reserve").
const LateReserveSize = JurySize

// epochSeconds is an epoch's length: one UTC day, the day the 10-a-day
// bound already counts in.
const epochSeconds = 86400

// EpochOf is the epoch a trace submitted at t falls in: the number of its
// UTC day since 1970-01-01. A trace with no time, or one before 1970,
// falls in epoch 0, whose jury is the founders'.
func EpochOf(t time.Time) int64 {
	if t.IsZero() || t.Unix() < 0 {
		return 0
	}
	return t.Unix() / epochSeconds
}

// epochStart is the first instant of epoch e.
func epochStart(e int64) time.Time { return time.Unix(e*epochSeconds, 0).UTC() }

// EpochStart is the first instant of the epoch a trace submitted at t
// falls in (EpochOf): when its jury was drawn, and the time a reserve's
// policy counts from.
func EpochStart(t time.Time) time.Time { return epochStart(EpochOf(t)) }

// member is an agent of an epoch's pool: its key (by trace URL, as
// everywhere in SIGNAL), the name it is hashed as, and whether it is
// away as of the epoch (markAway; only under rules with AwayAfter).
type member struct {
	key, name string
	away      bool
}

// hashName is the name a validator is hashed as: the name the mesh knows
// it by, trimmed and lowercased (names compare case-insensitively), so
// that observers reaching it by different URLs (http or https, a mirror,
// a test server's port) draw the same jury.
func hashName(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// rendezvous is the weight of the validator named name for the trace
// hash h: sha256 of the hash as written in a MANIFEST ("sha256:" and
// lowercase hex), a newline, and hashName(name).
func rendezvous(h manifest.Hash, name string) [sha256.Size]byte {
	return sha256.Sum256([]byte(string(h) + "\n" + hashName(name)))
}

// jury draws the jury of the trace with hash h whose author has key
// author from pool: the k members, author excepted, with the highest
// rendezvous weight (bytes compared as an unsigned big-endian number),
// equal weights (one name at two URLs) by key; highest first. Members
// away come after every member present, so they fill only the seats the
// present leave empty. A pool of k or fewer others is the whole pool.
func jury(h manifest.Hash, author string, pool []member, k int) []member {
	type cand struct {
		m member
		w [sha256.Size]byte
	}
	cs := make([]cand, 0, len(pool))
	for _, p := range pool {
		if p.key != author {
			cs = append(cs, cand{p, rendezvous(h, p.name)})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].m.away != cs[j].m.away {
			return !cs[i].m.away
		}
		if c := bytes.Compare(cs[i].w[:], cs[j].w[:]); c != 0 {
			return c > 0
		}
		return cs[i].m.key < cs[j].m.key
	})
	out := make([]member, 0, min(k, len(cs)))
	for _, c := range cs[:min(k, len(cs))] {
		out = append(out, c.m)
	}
	return out
}

// assigner knows, for one mesh's files, who had standing as of each
// epoch: the agents the standing closure admits from the files dated
// before the epoch began (before), each of those traces judged by its
// own epoch's jury. The epochs are computed in order, so every epoch's
// pool rests only on earlier ones'.
type assigner struct {
	in     Input // the files, each kind sorted by its date (byDate)
	rules  Rules
	epochs []int64              // the epochs of in's traces, ascending
	pools  map[int64][]member   // epoch → agents with standing as of its start, by key
	juries map[juryKey][]member // juries drawn so far: every epoch's mesh draws the earlier traces' again
	lates  map[juryKey][]member // late reserves drawn so far (mesh-2026-7)
	cache  *Pools               // pools kept from other computations; nil: none
	keyed  []int64              // the epochs keys are chained over: epochs, and under a late reserve each one's late epoch
	keys   map[int64]poolKey    // each epoch's key in cache (poolKeys), once one is needed
}

// juryKey is what a jury depends on: the trace's hash, author and epoch.
type juryKey struct {
	hash   manifest.Hash
	author string
	epoch  int64
}

func newAssigner(in Input, rules Rules, cache *Pools) *assigner {
	a := &assigner{in: byDate(in), rules: rules, pools: map[int64][]member{}, juries: map[juryKey][]member{},
		lates: map[juryKey][]member{}, cache: cache}
	for _, ts := range [][]*ledger.Trace{a.in.Traces, a.in.Copies} {
		for _, t := range ts {
			a.epochs = append(a.epochs, EpochOf(t.Submitted))
		}
	}
	slices.Sort(a.epochs)
	a.epochs = slices.Compact(a.epochs)
	a.keyed = a.epochs
	if rules.LateReserve > 0 {
		// The late epochs' pools are needed every run: chained among the
		// epochs with traces, their keys stay the same from run to run.
		a.keyed = slices.Clone(a.epochs)
		for _, e := range a.epochs {
			a.keyed = append(a.keyed, a.lateEpoch(e))
		}
		slices.Sort(a.keyed)
		a.keyed = slices.Compact(a.keyed)
	}
	return a
}

// lateEpoch is the epoch whose pool a trace of epoch e draws its late
// reserve from, and from whose first instant its late reserve's votes
// count (mesh-2026-7): AwayAfter days on, when a juror that left on e
// without a vote is away.
func (a *assigner) lateEpoch(e int64) int64 { return e + int64(a.rules.AwayAfter) }

// pool returns the agents with standing as of epoch e's start.
func (a *assigner) pool(e int64) []member {
	if p, ok := a.pools[e]; ok {
		return p
	}
	if p, ok := a.cached(e); ok {
		a.pools[e] = p
		return p
	}
	for _, earlier := range a.epochs {
		if earlier >= e {
			break
		}
		a.pool(earlier)
	}
	in := a.in.before(epochStart(e))
	m := newMesh(in, a.rules)
	m.assign(a, e)
	c := m.closure()
	p := []member{}
	for id, k := range m.keyOf {
		if c.has[id] {
			p = append(p, member{key: k, name: m.names[k]})
		}
	}
	if a.rules.AwayAfter > 0 {
		m.markAway(p, in.Validations, e, a.rules.AwayAfter)
	}
	a.pools[e] = p // sorted by key: keyOf is
	if a.cache != nil {
		a.cache.store(e, a.key(e), p)
	}
	return p
}

// cached returns epoch e's pool from the cache, when it holds it under
// the key of the files before e.
func (a *assigner) cached(e int64) ([]member, bool) {
	if a.cache == nil {
		return nil, false
	}
	return a.cache.lookup(e, a.key(e))
}

// key is epoch e's key in the cache: computed at once for the epochs of
// the input's traces (and under a late reserve their late epochs), and for
// another epoch (a trace Assignments is asked about that the input lacks)
// with it among them: a key of the files before it, chained as among
// those epochs.
func (a *assigner) key(e int64) poolKey {
	if a.keys == nil {
		a.keys = poolKeys(a.in, a.keyed)
	}
	k, ok := a.keys[e]
	if !ok {
		i, _ := slices.BinarySearch(a.keyed, e)
		k = poolKeys(a.in, slices.Insert(slices.Clone(a.keyed), i, e))[e]
		a.keys[e] = k
	}
	return k
}

// markAway marks the members of pool (epoch e's) that are away
// (docs/protocol.md §8.8, mesh-2026-5): on the jury of a trace of an
// epoch t with t + after ≤ e, and with no validation in vals (the files
// dated before e) stating a time at or after t's first instant. Any
// validation file a member lists is evidence it is present, assigned or
// not, counted or not; one stating no time is evidence of nothing. Only
// the newest such assignment matters: a validation after it answers
// every earlier one.
func (m *mesh) markAway(pool []member, vals []*ledger.Validation, e int64, after int) {
	assigned := map[string]int64{} // juror key → newest epoch of its assignments up to e − after
	for i, t := range m.traces {
		te := EpochOf(t.Submitted)
		if te+int64(after) > e {
			continue
		}
		for _, id := range m.juries[i] {
			if k := m.keyOf[id]; te >= assigned[k] {
				assigned[k] = te
			}
		}
	}
	newest := map[string]time.Time{} // validator key → the newest time its validations state
	for _, v := range vals {
		if v.Validator == "" && v.ValidatorURL == "" {
			continue
		}
		if k := m.key(v.Validator, v.ValidatorURL); v.ValidatedAt.After(newest[k]) {
			newest[k] = v.ValidatedAt
		}
	}
	for i := range pool {
		if te, ok := assigned[pool[i].key]; ok && newest[pool[i].key].Before(epochStart(te)) {
			pool[i].away = true
		}
	}
}

// juryOf is the jury of trace t, drawn from the pool of its epoch
// excepting its author, and its reserve (Rules.Reserve): the ranks after
// the jury's in the same order, so that the jury is the one rules
// without a reserve draw.
func (a *assigner) juryOf(m *mesh, t *ledger.Trace) (jurors, reserve []member) {
	k := juryKey{t.Hash, m.key(t.Agent, t.AgentURL), EpochOf(t.Submitted)}
	j, ok := a.juries[k]
	if !ok {
		j = jury(k.hash, k.author, a.pool(k.epoch), a.rules.JurySize+a.rules.Reserve)
		a.juries[k] = j
	}
	n := min(a.rules.JurySize, len(j))
	return j[:n:n], j[n:]
}

// lateOf is trace t's late reserve (Rules.LateReserve), whose jury and
// reserve are seated: the first LateReserve members of the present-first
// rendezvous order over lateCandidates, its author and the seated
// excepted; none under rules without one.
func (a *assigner) lateOf(m *mesh, t *ledger.Trace, seated []member) []member {
	if a.rules.LateReserve == 0 {
		return nil
	}
	k := juryKey{t.Hash, m.key(t.Agent, t.AgentURL), EpochOf(t.Submitted)}
	if l, ok := a.lates[k]; ok {
		return l
	}
	order := jury(k.hash, k.author, a.lateCandidates(k.epoch), len(seated)+a.rules.LateReserve)
	l := make([]member, 0, a.rules.LateReserve)
	for _, c := range order {
		if len(l) < a.rules.LateReserve && !hasKey(seated, c.key) {
			l = append(l, c)
		}
	}
	a.lates[k] = l
	return l
}

// lateCandidates are those a trace of epoch e draws its late reserve
// from (docs/protocol.md §8.8, 7): the members of e's pool, with the
// names they had as of e, that are still in the pool of the late epoch,
// marked away by the late epoch's marks. Nothing that ranks a candidate
// is chosen after the trace's hash is public but its own presence: an
// agent admitted, or renamed, after e cannot grind a name that outranks
// the validators on a known hash.
func (a *assigner) lateCandidates(e int64) []member {
	away := map[string]bool{} // key → away as of the late epoch, for its members
	for _, c := range a.pool(a.lateEpoch(e)) {
		away[c.key] = c.away
	}
	var cs []member
	for _, c := range a.pool(e) {
		if aw, ok := away[c.key]; ok {
			c.away = aw
			cs = append(cs, c)
		}
	}
	return cs
}

// byDate is in with its traces and other listings sorted by epoch, and
// its validations and disputes by the time they state (none first), so
// that the files dated before any time are a prefix of each (before).
// Compute does not depend on the order of its input.
func byDate(in Input) Input {
	out := in
	out.Traces, out.Copies = slices.Clone(in.Traces), slices.Clone(in.Copies)
	for _, ts := range [][]*ledger.Trace{out.Traces, out.Copies} {
		slices.SortStableFunc(ts, func(x, y *ledger.Trace) int { return cmpInt(EpochOf(x.Submitted), EpochOf(y.Submitted)) })
	}
	out.Validations = slices.Clone(in.Validations)
	slices.SortStableFunc(out.Validations, func(x, y *ledger.Validation) int { return x.ValidatedAt.Compare(y.ValidatedAt) })
	out.Disputes = slices.Clone(in.Disputes)
	slices.SortStableFunc(out.Disputes, func(x, y ledger.Dispute) int { return x.ObservedAt.Compare(y.ObservedAt) })
	return out
}

func cmpInt(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// before is the part of in (sorted by byDate) dated before start: the
// traces and other listings submitted in earlier epochs, the validations
// and disputes that state a time before it or none (a validation without
// one counts as of its trace's time, and one backdated before its trace
// as of the trace's: voteDay), and the founders and rules.
func (in Input) before(start time.Time) Input {
	e := EpochOf(start)
	earlier := func(t *ledger.Trace) bool { return EpochOf(t.Submitted) < e }
	return Input{Founders: in.Founders, Rules: in.Rules,
		Traces:      in.Traces[:prefix(len(in.Traces), func(i int) bool { return earlier(in.Traces[i]) })],
		Copies:      in.Copies[:prefix(len(in.Copies), func(i int) bool { return earlier(in.Copies[i]) })],
		Validations: in.Validations[:prefix(len(in.Validations), func(i int) bool { return in.Validations[i].ValidatedAt.Before(start) })],
		Disputes:    in.Disputes[:prefix(len(in.Disputes), func(i int) bool { return in.Disputes[i].ObservedAt.Before(start) })],
	}
}

// prefix is the length of the longest prefix of n items all of which
// keep, for items sorted so that keep holds of a prefix.
func prefix(n int, keep func(int) bool) int {
	return sort.Search(n, func(i int) bool { return !keep(i) })
}

// assign draws every trace's jury, reserve and late reserve, and marks
// the votes outside them: a late reserve's vote is outside unless dated
// in its late epoch or after. The mesh's files are dated before epoch
// horizon (a pool's computation: Input.before) or any (math.MaxInt64):
// a trace whose late epoch is not before it can hold no vote its late
// reserve casts, so its late reserve is not drawn, and a pool never
// needs its own, or a later, pool.
func (m *mesh) assign(a *assigner, horizon int64) {
	m.juries = make([][]int, len(m.traces))
	m.reserves = make([][]int, len(m.traces))
	m.lates = make([][]int, len(m.traces))
	for i, t := range m.traces {
		js, rs := a.juryOf(m, t)
		m.juries[i], m.reserves[i] = m.idsOf(js), m.idsOf(rs)
		late := a.lateEpoch(EpochOf(t.Submitted))
		if a.rules.LateReserve > 0 && late < horizon {
			m.lates[i] = m.idsOf(a.lateOf(m, t, slices.Concat(js, rs)))
		}
		for j := range m.ballots[i] {
			b := &m.ballots[i][j]
			b.outside = !slices.Contains(m.juries[i], b.voter) && !slices.Contains(m.reserves[i], b.voter) &&
				!(b.day >= late && slices.Contains(m.lates[i], b.voter))
		}
	}
}

// idsOf is the agent ids of the members of ms this mesh knows, in order.
func (m *mesh) idsOf(ms []member) []int {
	ids := make([]int, 0, len(ms))
	for _, j := range ms {
		if id, ok := m.ids[j.key]; ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// namesOf is the names of the agents ids[i] (trace i's jurors or
// reserve), in order; nil under rules that assign nothing.
func (m *mesh) namesOf(ids [][]int, i int) []string {
	if ids == nil {
		return nil
	}
	out := make([]string, 0, len(ids[i]))
	for _, id := range ids[i] {
		out = append(out, m.names[m.keyOf[id]])
	}
	return out
}

// reserveNames is the names of trace i's reserve, or of another list of
// ids per trace (its late reserve); nil without one.
func (m *mesh) reserveNames(ids [][]int, i int) []string {
	if ids == nil || len(ids[i]) == 0 {
		return nil
	}
	return m.namesOf(ids, i)
}

// Assignments says which traces a mesh's rule set assigns to whom. It is
// the computation Compute judges votes by, for a node choosing what to
// score.
type Assignments struct {
	a *assigner
	m *mesh
}

// NewAssignments prepares the assignments of in's files; ok is false
// when in's rule set assigns nothing (every agent with standing judges
// every trace).
func NewAssignments(in Input) (Assignments, bool) { return newAssignments(in, nil) }

func newAssignments(in Input, cache *Pools) (Assignments, bool) {
	rules, ok := RulesNamed(in.Rules)
	if !ok || rules.JurySize == 0 {
		return Assignments{}, false
	}
	return Assignments{a: newAssigner(in, rules, cache), m: &mesh{agents: newAgentTable()}}, true
}

// Jury returns the names of t's jurors, highest weight first.
func (as Assignments) Jury(t *ledger.Trace) []string {
	js, _ := as.a.juryOf(as.m, t)
	return memberNames(js)
}

// Reserve returns the names of t's reserve (mesh-2026-6), highest weight
// first; none under rules without one.
func (as Assignments) Reserve(t *ledger.Trace) []string {
	_, rs := as.a.juryOf(as.m, t)
	return memberNames(rs)
}

// LateReserve returns the names of t's late reserve (mesh-2026-7), first
// rank first; none under rules without one. For a trace whose late epoch
// has not begun it is drawn from the files as they are, as that epoch's
// pool is: files dated before that epoch may still come and change it.
func (as Assignments) LateReserve(t *ledger.Trace) []string {
	return memberNames(as.late(t))
}

// InLateReserve reports whether the agent at trace URL url is in t's
// late reserve (mesh-2026-7): its vote counts when dated at or after
// LateFrom(t), and the node's policy says when it casts one.
func (as Assignments) InLateReserve(t *ledger.Trace, url string) bool {
	return hasKey(as.late(t), agentKey("", url))
}

// LateFrom is the first instant at which a vote of t's late reserve
// counts: the start of its late epoch; zero under rules without one.
func (as Assignments) LateFrom(t *ledger.Trace) time.Time {
	if as.a.rules.LateReserve == 0 {
		return time.Time{}
	}
	return epochStart(as.a.lateEpoch(EpochOf(t.Submitted)))
}

func (as Assignments) late(t *ledger.Trace) []member {
	js, rs := as.a.juryOf(as.m, t)
	return as.a.lateOf(as.m, t, slices.Concat(js, rs))
}

func memberNames(ms []member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.name
	}
	return out
}

// AssignedTo reports whether the agent at trace URL url is on t's jury.
func (as Assignments) AssignedTo(t *ledger.Trace, url string) bool {
	js, _ := as.a.juryOf(as.m, t)
	return hasKey(js, agentKey("", url))
}

// InReserve reports whether the agent at trace URL url is in t's reserve
// (mesh-2026-6): its vote counts, and the node's policy says when it
// casts one (docs/decisions.md, Assignment: "The reserve").
func (as Assignments) InReserve(t *ledger.Trace, url string) bool {
	_, rs := as.a.juryOf(as.m, t)
	return hasKey(rs, agentKey("", url))
}

func hasKey(ms []member, k string) bool {
	return slices.ContainsFunc(ms, func(j member) bool { return j.key == k })
}

// Away reports whether the agent at trace URL url is away (docs/protocol.md
// §8.8, 5) as of the newest epoch the assignments' traces fall in, the one
// the day's new traces are drawn in: the mark markAway gives its pool, so a
// node asking about itself sees what every jury of that epoch was drawn
// with. False under rules with nobody away, for an agent not in the pool,
// and when the files hold no trace.
func (as Assignments) Away(url string) bool {
	if as.a.rules.AwayAfter == 0 || len(as.a.epochs) == 0 {
		return false
	}
	k := agentKey("", url)
	p := as.a.pool(as.a.epochs[len(as.a.epochs)-1])
	i := slices.IndexFunc(p, func(m member) bool { return m.key == k })
	return i >= 0 && p[i].away
}
