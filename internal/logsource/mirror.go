package logsource

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/source"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/translog"
)

// IdentityMirror is the IDENTITY.md field that lists a mirror of the
// agent's files: a base URL serving the same paths, its log/ included
// (docs/protocol.md §3.4).
const IdentityMirror = "mirror"

// maxMirrors bounds the mirrors read of one IDENTITY.md; later lines are
// ignored. Each costs a request at most when the origin is down.
const maxMirrors = 4

// mirrorOnlyWarn is how long the node reads a peer from its mirrors alone
// before it says so at every poll: a mirror can delay the log but never
// forge it, and a week without the origin is worth an operator's look.
const mirrorOnlyWarn = 7 * 24 * time.Hour

// Mirrors returns the mirrors IDENTITY.md lists on mirror lines, each a
// trace URL in its canonical form (roster.NormalizeURL), in file order,
// without repeats or origin itself, at most maxMirrors; lines that are no
// such URL are skipped.
func Mirrors(identity []byte, origin string) []string {
	var out []string
	for _, line := range strings.Split(string(identity), "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), IdentityMirror+":")
		if !ok {
			continue
		}
		u, err := roster.NormalizeURL(v)
		if err != nil || u == origin || slices.Contains(out, u) {
			continue
		}
		if out = append(out, u); len(out) == maxMirrors {
			break
		}
	}
	return out
}

// fromMirrors reads p's log from the mirrors its pin lists, in order,
// after its origin failed with originErr: the first that serves a
// checkpoint is read as the origin would be, its bytes verified against
// the pinned key and the checkpoint accepted, and the files of its
// entries are fetched from it (Listing.Mirror). Without a mirror that
// answers, the poll fails with originErr.
func (s *Source) fromMirrors(ctx context.Context, p source.Peer, c *state.Cursor, pin *logpin.Pin, l *source.Listing, originErr error) (*source.Listing, error) {
	for _, m := range pin.Mirrors {
		mp := source.Peer{Name: p.Name, URL: m, Public: p.Public}
		cp, err := s.Client.Get(ctx, request(mp, checkpointURL(mp), translog.MaxCheckpointBytes))
		l.Requests++
		if err != nil {
			s.Logf("peer %s: origin down, mirror %s not read either: %v", p.Name, m, err)
			continue
		}
		if pin.MirrorSince.IsZero() {
			pin.MirrorSince = s.Now
			s.Pins.Put(pin) // whatever the read finds, even nothing new
		}
		if since := s.Now.Sub(pin.MirrorSince); since >= mirrorOnlyWarn {
			s.Logf("peer %s: read from its mirrors alone for %s: its origin %s may be gone; check with the agent", p.Name, since.Round(time.Hour), p.URL)
		}
		var got *source.Listing
		if string(cp.Body) == pin.Checkpoint {
			got, err = s.resume(ctx, mp, c, pin, l)
		} else {
			got, err = s.advance(ctx, mp, c, pin, cp.Body, l)
		}
		if err != nil {
			s.Logf("peer %s: mirror %s: %v", p.Name, m, err)
			continue
		}
		if got.Manifest != nil {
			got.Mirror = m
		}
		return got, nil
	}
	return l, originErr
}

// refreshMirrors reads p's IDENTITY.md again for its mirrors, on a poll
// whose log grew, at most once in probeEvery: a mirror the agent lists
// later is known within a day of its next entry. Its log_key lines are
// not read: only the log moves the pinned key. A failure keeps the list.
func (s *Source) refreshMirrors(ctx context.Context, p source.Peer, c *state.Cursor, pin *logpin.Pin, l *source.Listing) {
	if s.Now.Before(c.LogProbed.Add(probeEvery)) {
		return
	}
	c.LogProbed = s.Now
	l.Requests++
	id, err := s.Client.Get(ctx, request(p, p.URL+node.IdentityFile, maxIdentityBytes))
	if err != nil {
		s.Logf("peer %s: %s not read, its mirrors kept: %v", p.Name, node.IdentityFile, err)
		return
	}
	pin.Mirrors = Mirrors(id.Body, p.URL)
}

// mirrorFault records that mirror m served bytes a's kind of alarm would
// refuse from the origin: the mirror, not the agent, is at fault (it holds
// no key of the agent's), so the agent's entries stay accepted from
// elsewhere; the evidence is kept in the pin.
func (s *Source) mirrorFault(p source.Peer, pin *logpin.Pin, a *logpin.Alarm) error {
	a.At = s.Now
	pin.MirrorFault = a
	s.Pins.Put(pin)
	return fmt.Errorf("mirror served bytes the log refuses (%s): %s", a.Kind, a.Detail)
}

// servedByMirror reports whether p, as read now, is a mirror of pin's
// peer.
func servedByMirror(p source.Peer, pin *logpin.Pin) bool { return p.URL != pin.URL }

// originAnswered forgets the mirror reading when the origin answered.
func (s *Source) originAnswered(pin *logpin.Pin) {
	if !pin.MirrorSince.IsZero() {
		pin.MirrorSince = time.Time{}
		s.Pins.Put(pin)
	}
}

// isDown reports whether err says the origin could not serve its
// checkpoint now (not that it no longer serves one: that is log_gone).
func isDown(err error) bool { return err != nil && !fetch.IsKind(err, fetch.KindNotFound) }
