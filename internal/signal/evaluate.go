package signal

import (
	"github.com/meshnode/meshnode/internal/manifest"
)

// outcome is what the files give when exactly the agents marked in has
// have standing: every trace's votes and status, what each trace earns its
// author and what each agent's validations earn. Every round of the
// closure and the final report read it, so they never disagree.
type outcome struct {
	passing, seen, uncounted []int             // per trace: votes with standing (passing, all), votes without
	unassigned               []int             // per trace: votes with standing outside its jury
	status                   []manifest.Status // per trace
	earns                    []float64         // per trace: what it earns its author; 0 unless validated
	corroborated             []bool            // per trace: passed by enough agents to earn its label's value
	counted, notCounted      []int             // per agent: validations authored with and without standing
	outside                  []int             // per agent: validations with standing outside the jury
	earning                  []int             // per agent: validations that earn, after the day bound
	admitters                []int             // per agent: distinct agents with standing that passed its validated traces
}

// evaluate computes the outcome of the mesh when has[id] says whether
// agent id has standing, under the mesh's rules. It counts into the
// arrays of prev, an outcome of an earlier round the caller no longer
// reads (zero: none), so that the rounds of a closure, once per epoch
// under mesh-2026-4, do not each allocate their own.
func (m *mesh) evaluate(has []bool, prev outcome) outcome {
	n, agents := len(m.traces), len(m.keyOf)
	o := outcome{
		passing: zeroed(prev.passing, n), seen: zeroed(prev.seen, n), uncounted: zeroed(prev.uncounted, n),
		unassigned: zeroed(prev.unassigned, n), status: zeroed(prev.status, n), earns: zeroed(prev.earns, n),
		corroborated: zeroed(prev.corroborated, n), outside: zeroed(prev.outside, agents),
		counted: zeroed(prev.counted, agents), notCounted: zeroed(prev.notCounted, agents),
		earning: zeroed(prev.earning, agents), admitters: zeroed(prev.admitters, agents),
	}
	for i := range m.traces {
		m.countVotes(&o, has, i)
	}
	m.earnValidations(&o, has)
	if m.rules.AdmitAt > 0 {
		m.countAdmitters(&o, has)
	}
	return o
}

// countVotes resolves trace i: its votes with standing, its status, and
// what it earns its author.
func (m *mesh) countVotes(o *outcome, has []bool, i int) {
	for _, b := range m.ballots[i] {
		if !has[b.voter] {
			o.uncounted[i]++
			o.notCounted[b.voter]++
			continue
		}
		if b.outside {
			o.unassigned[i]++
			o.outside[b.voter]++
			continue
		}
		o.seen[i]++
		o.counted[b.voter]++
		if b.pass {
			o.passing[i]++
		}
	}
	o.status[i] = status(o.passing[i], o.seen[i])
	if o.status[i] == manifest.StatusValidated {
		o.corroborated[i] = o.passing[i] >= m.rules.CorroborateAt
		o.earns[i] = m.tracePoints(i, o.corroborated[i])
	}
}

// earnValidations counts, per validator, the validations that earn: every
// one with standing under mesh-2026-1; under rules that want agreement,
// those that agree with the outcome the other validators with standing
// settled, at most MaxEarningPerDay a day.
func (m *mesh) earnValidations(o *outcome, has []bool) {
	if !m.rules.AgreeingOnly {
		copy(o.earning, o.counted)
		m.unearnCopies(o, has)
		return
	}
	perDay := map[[2]int64]int{}
	for i := range m.traces {
		for _, b := range m.ballots[i] {
			if has[b.voter] && !b.copied && !b.outside && agrees(b.pass, o.passing[i], o.seen[i]) {
				perDay[[2]int64{int64(b.voter), b.day}]++
			}
		}
	}
	for k, count := range perDay {
		if max := m.rules.MaxEarningPerDay; max > 0 && count > max {
			count = max
		}
		o.earning[k[0]] += count
	}
}

// agrees reports whether a vote agrees with the outcome the other votes
// with standing settle, given the trace's votes with standing including
// this one: their strict majority. No other vote, or a tie, settles
// nothing, and a vote that settles nothing earns nothing.
func agrees(pass bool, passing, seen int) bool {
	if pass {
		passing--
	}
	seen--
	if seen == 0 || 2*passing == seen {
		return false
	}
	return (2*passing > seen) == pass
}

// countAdmitters counts, per agent, the distinct agents with standing that
// passed any of its validated traces.
func (m *mesh) countAdmitters(o *outcome, has []bool) {
	seen := map[[2]int]bool{}
	for i := range m.traces {
		if o.status[i] != manifest.StatusValidated || m.copied[i] {
			continue
		}
		a := m.authors[i]
		for _, b := range m.ballots[i] {
			if b.pass && has[b.voter] && !b.outside && !seen[[2]int{a, b.voter}] {
				seen[[2]int{a, b.voter}] = true
				o.admitters[a]++
			}
		}
	}
}

// signals is every agent's SIGNAL in the outcome: a founder's starting
// points, what its validated traces earn and what its validations earn.
func (m *mesh) signals(o outcome) []float64 {
	sig := make([]float64, len(m.keyOf))
	for id, k := range m.keyOf {
		if m.founders[k] {
			sig[id] += FounderPoints
		}
		sig[id] += float64(o.earning[id]) * ValidationPoints
	}
	for i, p := range o.earns {
		sig[m.authors[i]] += p
	}
	return sig
}

// zeroed is s cleared to n zero values, in its own array when it has room.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
