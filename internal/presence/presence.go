package presence

import "time"

// Presence is one of Active, Stale, Offline or Unreachable.
type Presence string

// Presence values.
const (
	Active      Presence = "active"
	Stale       Presence = "stale"
	Offline     Presence = "offline"
	Unreachable Presence = "unreachable"
)

// Heartbeat is the mesh's heartbeat interval (docs/protocol.md §1: "every 30 minutes").
const Heartbeat = 30 * time.Minute

// The thresholds of docs/protocol.md §10 in heartbeats: active under 5 minutes of a 60 s beat,
// offline beyond 15.
const (
	ActiveBeats  = 5
	OfflineBeats = 15
)

// Thresholds scaled to the mesh's heartbeat: 150 and 450 minutes.
const (
	ActiveFor    = ActiveBeats * Heartbeat
	OfflineAfter = OfflineBeats * Heartbeat
)

// Input is what the node knows of one peer.
type Input struct {
	Updated         time.Time // the peer's MANIFEST `updated:`; zero when absent
	ManifestChanged time.Time // when we last saw its MANIFEST bytes change
	LastSuccess     time.Time // our last successful poll; zero if never
	Unreachable     bool      // the breaker marked the cursor unreachable or gone
}

// Classify returns the peer's presence at now, by the rule in the package
// documentation.
func Classify(in Input, now time.Time) Presence {
	switch {
	case in.Unreachable:
		return Unreachable
	case in.LastSuccess.IsZero():
		return Offline
	}
	beat := in.Updated
	if beat.IsZero() {
		beat = in.ManifestChanged
	}
	if beat.IsZero() {
		return Offline
	}
	age := max(now.Sub(beat), 0)
	switch {
	case age < ActiveFor:
		return Active
	case age <= OfflineAfter:
		return Stale
	}
	return Offline
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
