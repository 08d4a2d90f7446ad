package presence

import "time"

// Presence is one of Active, Stale, Offline, Unreachable or Unknown.
type Presence string

// Presence values.
const (
	Active      Presence = "active"
	Stale       Presence = "stale"
	Offline     Presence = "offline"
	Unreachable Presence = "unreachable"
	Unknown     Presence = "unknown"
)

// Heartbeat is the mesh's heartbeat interval (docs/protocol.md §1: "every 30 minutes").
const Heartbeat = 30 * time.Minute

// ActiveBeats is the threshold of docs/protocol.md §10 in heartbeats: active
// under 5 minutes of a 60 s beat.
const ActiveBeats = 5

// ActiveFor is ActiveBeats scaled to the mesh's heartbeat, 150 minutes: a
// node that beats, as ours does (RefreshDue), stays active.
const ActiveFor = ActiveBeats * Heartbeat

// OfflineAfter is how long an agent may go without a dated word before it
// is offline: a week. Real agents publish in sessions, not on a heartbeat,
// and keep their `updated:` header months old; the seed's 15 heartbeats
// (7.5 hours) would call an agent that published this morning offline
// tonight (docs/decisions.md, "Presence").
const OfflineAfter = 7 * 24 * time.Hour

// Skew is how far in the future a time may lie and still count, as now: a
// peer's clock a little ahead of ours. A time further ahead is not
// evidence, so that a manifest dated 2099 cannot stay active forever.
const Skew = Heartbeat

// Source names where the evidence of a judgement came from.
type Source string

// Sources of evidence.
const (
	FromNone   Source = ""        // no dated evidence
	FromHeader Source = "updated" // the MANIFEST's `updated:` header
	FromEntry  Source = "entry"   // the newest MANIFEST row's `submitted`
)

// Input is what the node knows of one peer.
type Input struct {
	Updated      time.Time // the peer's MANIFEST `updated:`; zero when absent
	NewestEntry  time.Time // the newest `submitted` of its MANIFEST rows (Newest); zero when none
	Polled       bool      // we have tried to poll it at least once
	LastSuccess  time.Time // our last successful poll; zero if never
	FirstFailure time.Time // the first of the current run of failed polls; zero when none
	Unreachable  bool      // the breaker marked the cursor unreachable or gone
}

// Judgement is a peer's presence and what it rests on.
type Judgement struct {
	Presence Presence
	AsOf     time.Time // the time the evidence was judged at
	Evidence time.Time // the newest evidence counted; zero when none
	Source   Source    // where Evidence came from
	Since    time.Time // for Unreachable: the first failed poll, when known
	Reached  bool      // a poll of the peer has succeeded
}

// Classify judges a peer's presence at the time at, by the rule in the
// package documentation.
func Classify(in Input, at time.Time) Judgement {
	j := Judgement{AsOf: at, Since: in.FirstFailure, Reached: !in.LastSuccess.IsZero()}
	switch {
	case in.Unreachable, in.Polled && in.LastSuccess.IsZero():
		j.Presence = Unreachable
		j.Evidence, j.Source = evidence(in, at)
		return j
	case !in.Polled:
		j.Presence = Unknown
		return j
	}
	j.Since = time.Time{}
	j.Evidence, j.Source = evidence(in, at)
	if j.Evidence.IsZero() {
		j.Presence = Offline
		return j
	}
	switch age := at.Sub(j.Evidence); {
	case age < ActiveFor:
		j.Presence = Active
	case age <= OfflineAfter:
		j.Presence = Stale
	default:
		j.Presence = Offline
	}
	return j
}

// evidence is the newest of the header's time and the newest row's time
// that is not after at (beyond Skew), never later than at.
func evidence(in Input, at time.Time) (time.Time, Source) {
	header, entry := plausible(in.Updated, at), plausible(in.NewestEntry, at)
	switch {
	case header.IsZero() && entry.IsZero():
		return time.Time{}, FromNone
	case entry.Before(header):
		return header, FromHeader
	}
	return entry, FromEntry
}

// plausible returns t capped at at, or zero when t lies more than Skew
// after at.
func plausible(t, at time.Time) time.Time {
	switch {
	case t.IsZero(), t.After(at.Add(Skew)):
		return time.Time{}
	case t.After(at):
		return at
	}
	return t
}

// Newest returns the newest of times that is plausible at at (not more
// than Skew in its future), capped at at; zero when none is. The poller
// keeps it as a peer's NewestEntry, so one row dated in the future cannot
// hide the real newest one.
func Newest(times []time.Time, at time.Time) time.Time {
	var newest time.Time
	for _, t := range times {
		if p := plausible(t, at); p.After(newest) {
			newest = p
		}
	}
	return newest
}

// RefreshAfter is how old our own MANIFEST's `updated:` may grow before a
// heartbeat rewrites it: half of ActiveFor, 75 minutes.
const RefreshAfter = ActiveFor / 2

// RefreshDue reports whether our own MANIFEST's `updated` time should be
// refreshed at now. Peers judge our presence by that time, so it must stay
// younger than ActiveFor; but rewriting it makes a commit, and a heartbeat
// that found nothing else should not commit every 30 minutes. Refreshing
// only past half the active threshold keeps us active to every peer, with
// room for one late run, while a quiet node commits at most every third
// heartbeat. A zero or future time (a skewed clock) is refreshed too.
func RefreshDue(updated, now time.Time) bool {
	return updated.IsZero() || updated.After(now) || now.Sub(updated) >= RefreshAfter
}
