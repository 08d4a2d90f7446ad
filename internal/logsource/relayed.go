package logsource

import (
	"context"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/source"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/translog"
)

// Relayed gives the checkpoint relays listed of a peer's log, which a
// poll may read the log under instead of asking the peer for its own
// (docs/decisions.md, "Relays"). relay.Reader is one.
type Relayed interface {
	// Checkpoint returns the newest checkpoint of the peer at url that
	// a relay listed, verbatim, or nil.
	Checkpoint(url string) []byte
}

// fromRelay reads p's log under the checkpoint a relay listed, when one
// may be taken (relayed): the poll then asks p for the tiles and bundles
// under it, not for its checkpoint. Verified as p's own would be (the
// consistency proof from the tree accepted, the tiles against its root,
// the key statements among its entries), it is accepted; anything that
// fails (a failure to fetch, or bytes that do not verify under it) is
// judged by p's own checkpoint instead, false, and raises no alarm, as
// nothing was accepted from the relay. readTree changes pin only when it
// succeeds (a rotation followed).
func (s *Source) fromRelay(ctx context.Context, p source.Peer, c *state.Cursor, pin *logpin.Pin, l *source.Listing) (*source.Listing, bool) {
	body, cp, ok := s.relayed(p, pin)
	if !ok {
		return nil, false
	}
	prev, to := acceptedTree(pin), tlog.Tree{N: cp.Size, Hash: cp.Root}
	at, ok := startOf(c, pin)
	if !ok {
		at = start{index: prev.N, after: pin.LastSeq}
	}
	got, err := s.readTree(ctx, p, &l.Requests, pin, body, prev, to, at, true)
	if err != nil || got.alarm != nil {
		why := "its log did not verify under it"
		if err != nil {
			why = err.Error()
		}
		s.Logf("peer %s: the checkpoint a relay listed (%d entries) not taken, its own read instead: %s", p.Name, cp.Size, why)
		return nil, false
	}
	s.refreshMirrors(ctx, p, c, pin, l)
	if pin.RelayedSince.IsZero() {
		pin.RelayedSince = s.Now
	}
	// The validators were the origin's checkpoint's: the next direct
	// poll asks for it whole.
	pin.ETag, pin.LastModified = "", ""
	keepTiles(pin, got.tiles)
	return s.accept(p, c, pin, l, body, to, at, got.entries), true
}

// relayed returns the checkpoint a relay listed of p when a poll may
// read p's log under it: the pinned key alone signs it (a key change is
// judged on the peer's own checkpoint), its tree is larger than the one
// accepted (an older or a forking one is never taken), the origin
// answered the last poll (no mirror reading), and the origin's own
// checkpoint was read within DirectPoll of the first relayed one taken
// since, so that a relay listing old checkpoints cannot keep the node
// from the peer's newest for longer.
func (s *Source) relayed(p source.Peer, pin *logpin.Pin) ([]byte, translog.Checkpoint, bool) {
	if s.Relayed == nil || !pin.MirrorSince.IsZero() || !pin.RelayedSince.IsZero() && !s.Now.Before(pin.RelayedSince.Add(s.DirectPoll)) {
		return nil, translog.Checkpoint{}, false
	}
	body := s.Relayed.Checkpoint(p.URL)
	if body == nil {
		return nil, translog.Checkpoint{}, false
	}
	cp, err := translog.Open(body, pin.Key)
	if err != nil || cp.Size <= acceptedTree(pin).N {
		return nil, translog.Checkpoint{}, false
	}
	return body, cp, true
}

// directRead notes that the origin answered with its own checkpoint:
// relayed checkpoints may be taken again for DirectPoll.
func (s *Source) directRead(pin *logpin.Pin) {
	if !pin.RelayedSince.IsZero() {
		pin.RelayedSince = time.Time{}
		s.Pins.Put(pin)
	}
}
