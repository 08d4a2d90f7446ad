// Package copies holds mesh-state/copies/, a file per peer: the bounded,
// cleaned copies of peers' traces that the site republishes, as an
// excerpt beside each trace and a reading view of it (docs/site.md, "What
// the node republishes"). A copy is taken from bytes whose hash verified,
// cleaned by peertext.CleanText and cut at MaxTextBytes; the node keeps
// the newest PerAgent of each agent and MaxCopies in all (Select).
//
// It holds text and decides bounds; it does not fetch, render or judge:
// the heartbeat decides when a copy is taken or taken down, the site
// renders it through the same sanitizing path as our own pages. Like the
// other state files it is written atomically with sorted keys, and a file
// it cannot read is a *statefile.CorruptError, never overwritten.
package copies
