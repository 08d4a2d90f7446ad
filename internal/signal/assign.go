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

// member is an agent of an epoch's pool: its key (by trace URL, as
// everywhere in SIGNAL) and the name it is hashed as.
type member struct {
	key, name string
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
// equal weights (one name at two URLs) by key; highest first. A pool of
// k or fewer others is the whole pool.
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
	in     Input
	rules  Rules
	epochs []int64            // the epochs of in's traces, ascending
	pools  map[int64][]member // epoch → agents with standing as of its start, by key
}

func newAssigner(in Input, rules Rules) *assigner {
	a := &assigner{in: in, rules: rules, pools: map[int64][]member{}}
	seen := map[int64]bool{}
	for _, ts := range [][]ledger.Trace{in.Traces, in.Copies} {
		for _, t := range ts {
			if e := EpochOf(t.Submitted); !seen[e] {
				seen[e] = true
				a.epochs = append(a.epochs, e)
			}
		}
	}
	slices.Sort(a.epochs)
	return a
}

// pool returns the agents with standing as of epoch e's start.
func (a *assigner) pool(e int64) []member {
	if p, ok := a.pools[e]; ok {
		return p
	}
	for _, earlier := range a.epochs {
		if earlier >= e {
			break
		}
		a.pool(earlier)
	}
	m := newMesh(a.in.before(epochStart(e)), a.rules)
	m.assign(a)
	c := m.closure()
	p := []member{}
	for id, k := range m.keyOf {
		if c.has[id] {
			p = append(p, member{k, m.names[k]})
		}
	}
	a.pools[e] = p // sorted: keyOf is
	return p
}

// juryOf is the jury of trace t: drawn from the pool of its epoch,
// excepting its author.
func (a *assigner) juryOf(m *mesh, t ledger.Trace) []member {
	return jury(t.Hash, m.key(t.Agent, t.AgentURL), a.pool(EpochOf(t.Submitted)), a.rules.JurySize)
}

// before is the part of in dated before start: the traces and their
// other listings submitted before it, the validations and disputes that
// state a time before it or none (a validation without one counts as of
// its trace's time, and one backdated before its trace as of the trace's:
// voteDay), and the founders and rules.
func (in Input) before(start time.Time) Input {
	out := Input{Founders: in.Founders, Rules: in.Rules}
	e := EpochOf(start)
	for _, t := range in.Traces {
		if EpochOf(t.Submitted) < e {
			out.Traces = append(out.Traces, t)
		}
	}
	for _, t := range in.Copies {
		if EpochOf(t.Submitted) < e {
			out.Copies = append(out.Copies, t)
		}
	}
	for _, v := range in.Validations {
		if v.ValidatedAt.Before(start) {
			out.Validations = append(out.Validations, v)
		}
	}
	for _, d := range in.Disputes {
		if d.ObservedAt.Before(start) {
			out.Disputes = append(out.Disputes, d)
		}
	}
	return out
}

// assign draws every trace's jury and marks the votes outside it.
func (m *mesh) assign(a *assigner) {
	m.juries = make([][]int, len(m.traces))
	for i, t := range m.traces {
		js := a.juryOf(m, t)
		ids := make([]int, 0, len(js))
		for _, j := range js {
			if id, ok := m.ids[j.key]; ok {
				ids = append(ids, id)
			}
		}
		m.juries[i] = ids
		for j := range m.ballots[i] {
			m.ballots[i][j].outside = !slices.Contains(ids, m.ballots[i][j].voter)
		}
	}
}

// juryNames is the names of trace i's jurors, highest weight first; nil
// under rules that assign nothing.
func (m *mesh) juryNames(i int) []string {
	if m.juries == nil {
		return nil
	}
	out := make([]string, 0, len(m.juries[i]))
	for _, id := range m.juries[i] {
		out = append(out, m.names[m.keyOf[id]])
	}
	return out
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
func NewAssignments(in Input) (Assignments, bool) {
	rules, ok := RulesNamed(in.Rules)
	if !ok || rules.JurySize == 0 {
		return Assignments{}, false
	}
	return Assignments{a: newAssigner(in, rules), m: &mesh{keys: map[string]string{}}}, true
}

// Jury returns the names of t's jurors, highest weight first.
func (as Assignments) Jury(t ledger.Trace) []string {
	js := as.a.juryOf(as.m, t)
	out := make([]string, len(js))
	for i, j := range js {
		out[i] = j.name
	}
	return out
}

// AssignedTo reports whether the agent at trace URL url is on t's jury.
func (as Assignments) AssignedTo(t ledger.Trace, url string) bool {
	k := agentKey("", url)
	return slices.ContainsFunc(as.a.juryOf(as.m, t), func(j member) bool { return j.key == k })
}
