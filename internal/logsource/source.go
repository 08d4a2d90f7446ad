package logsource

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/presence"
	"github.com/meshnode/meshnode/internal/source"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/translog"
)

// maxIdentityBytes bounds a peer's IDENTITY.md, read for its log_key:
// real ones are under 2 KiB.
const maxIdentityBytes = 64 << 10

// maxEntriesPerRead bounds the entries one poll reads from a log, as
// manifest.MaxRows bounds a MANIFEST.md's: 400 bundles, about 20 MB of
// entries in memory. A log that grew more since the last poll (or at
// first contact) fails the poll with a clear error. A variable so tests
// can lower it.
var maxEntriesPerRead int64 = manifest.MaxRows

// Source reads the entries of peers that publish a signed log from it,
// and those of other peers through Manifest.
type Source struct {
	Client *fetch.Client
	// Manifest reads peers without a log (heartbeat's MANIFEST.md source).
	Manifest source.Source
	Pins     *logpin.Pins
	Now      time.Time
	Logf     func(format string, args ...any)
}

// Read reads p's new entries. A pinned peer is read from its log alone.
// Another is read through Manifest; when that finds news, IDENTITY.md is
// read for a log_key, and a peer that publishes one and log/checkpoint is
// pinned on that key and read from its log from then on.
func (s *Source) Read(ctx context.Context, p source.Peer, c *state.Cursor) (*source.Listing, error) {
	pin := s.Pins.Get(p.URL)
	switch {
	case pin == nil:
		pin = &logpin.Pin{URL: p.URL}
	case pin.Key != "":
		return s.readLog(ctx, p, c, pin, nil, 0)
	case pin.Repin:
		// An operator re-pinned it: look for the log before anything else.
		return s.discover(ctx, p, c, pin, nil)
	}
	l, err := s.Manifest.Read(ctx, p, c)
	if err != nil || l.Unchanged {
		return l, err
	}
	return s.discover(ctx, p, c, pin, l)
}

// discover reads p's IDENTITY.md and log/checkpoint; when it publishes
// a log key and the checkpoint exists, it pins the key and reads the
// log, dropping l (what the manifest gave). Otherwise l stands, or, after
// a re-pin, MANIFEST.md is read.
func (s *Source) discover(ctx context.Context, p source.Peer, c *state.Cursor, pin *logpin.Pin, l *source.Listing) (*source.Listing, error) {
	key, cp, requests := s.probe(ctx, p)
	switch {
	case key != "":
		if l != nil && l.Release != nil {
			l.Release()
		}
		s.Logf("peer %s: log key %s pinned on first contact", p.Name, key)
		pin.Key, pin.Repin = key, false
		return s.readLog(ctx, p, c, pin, cp, requests+requestsOf(l))
	case l != nil:
		l.Requests += requests
		return l, nil
	}
	pin.Repin = false
	s.Pins.Put(pin)
	l, err := s.Manifest.Read(ctx, p, c)
	if l != nil {
		l.Requests += requests
	}
	return l, err
}

func requestsOf(l *source.Listing) int {
	if l == nil {
		return 0
	}
	return l.Requests
}

// probe returns the log key p's IDENTITY.md publishes and its
// log/checkpoint, or "" when it publishes no log (or either cannot be
// read now: the manifest stands until a later poll finds both).
func (s *Source) probe(ctx context.Context, p source.Peer) (string, *fetch.Response, int) {
	id, err := s.Client.Get(ctx, request(p, p.URL+node.IdentityFile, maxIdentityBytes))
	if err != nil {
		if !fetch.IsKind(err, fetch.KindNotFound) {
			s.Logf("peer %s: %s not read, log key unknown: %v", p.Name, node.IdentityFile, err)
		}
		return "", nil, 1
	}
	keys := translog.Keys(id.Body)
	if len(keys) == 0 {
		return "", nil, 1
	}
	if _, err := note.NewVerifier(keys[0]); len(keys) > 1 || err != nil {
		s.Logf("peer %s: %s publishes %d %s lines, the first %q: not one key, no log read", p.Name, node.IdentityFile, len(keys), translog.IdentityKey, keys[0])
		return "", nil, 1
	}
	cp, err := s.Client.Get(ctx, request(p, checkpointURL(p), translog.MaxCheckpointBytes))
	if err != nil {
		if !fetch.IsKind(err, fetch.KindNotFound) {
			s.Logf("peer %s: its log key is published, its checkpoint not read: %v", p.Name, err)
		}
		return "", nil, 2
	}
	return keys[0], cp, 2
}

// readLog reads p's log past the pinned checkpoint: cp is the checkpoint
// when probe already fetched it, and requests the requests made before.
func (s *Source) readLog(ctx context.Context, p source.Peer, c *state.Cursor, pin *logpin.Pin, cp *fetch.Response, requests int) (*source.Listing, error) {
	l := &source.Listing{RateLeft: -1, Requests: requests}
	if pin.Alarm != nil {
		// Refused until an operator re-pins it (Pins.Repin): nothing read.
		l.Unchanged = true
		return l, nil
	}
	if cp == nil {
		req := request(p, checkpointURL(p), translog.MaxCheckpointBytes)
		if !reread(c, pin) {
			req.ETag, req.LastModified = pin.ETag, pin.LastModified
		}
		var err error
		cp, err = s.Client.Get(ctx, req)
		l.Requests++
		if fetch.IsKind(err, fetch.KindNotFound) {
			return s.refuse(p, pin, l, &logpin.Alarm{Kind: logpin.AlarmLogGone, Detail: "log/checkpoint is no longer served; a peer once read through its log is never read from MANIFEST.md alone", Checkpoints: nonEmpty(pin.Checkpoint)})
		}
		if err != nil {
			return l, err
		}
		l.RateLeft = cp.RateLimit.Remaining
	}
	pin.ETag, pin.LastModified = cp.ETag, cp.LastModified
	if cp.NotModified || string(cp.Body) == pin.Checkpoint && !reread(c, pin) {
		s.Pins.Put(pin)
		l.Unchanged = true
		return l, nil
	}
	return s.advance(ctx, p, c, pin, cp.Body, l)
}

// reread reports whether the poll wants entries of the tree accepted
// before: retries or a backlog (c.Unread), or a cursor behind the pin's
// last seq, when the poll that read them did not end (interrupted, cut
// by the deadline) and the cursor it saved is older than the pin. The
// whole log is then read again and verified, and the plan dedups.
func reread(c *state.Cursor, pin *logpin.Pin) bool {
	return c.Unread() || c.LastSeenSeq < pin.LastSeq
}

// advance verifies the checkpoint body against the pin and reads the
// entries it adds.
func (s *Source) advance(ctx context.Context, p source.Peer, c *state.Cursor, pin *logpin.Pin, body []byte, l *source.Listing) (*source.Listing, error) {
	cp, signed, err := openCheckpoint(body, pin.Key)
	if err != nil {
		return s.refuse(p, pin, l, signatureAlarm(pin, body, err))
	}
	to := tlog.Tree{N: cp.Size, Hash: cp.Root}
	prev := acceptedTree(pin)
	if !signed && to.N <= prev.N && !slices.Contains(pin.Accepted, treeOf(to)) {
		// Another key, and no new entry that could rotate to it.
		return s.refuse(p, pin, l, keyChangeAlarm(pin, body, "the checkpoint bears no signature by the pinned key "+pin.Key+" and adds no entry that could announce another"))
	}
	r := newTileReader(ctx, s.getter(p, &l.Requests), keptTiles(pin))
	switch {
	case to.N < prev.N:
		return s.older(p, pin, l, r, prev, to, body)
	case to.N == prev.N && to.Hash != prev.Hash:
		return s.refuse(p, pin, l, forkAlarm(pin, body, "two checkpoints of the same size with different roots"))
	case to.N == prev.N && !reread(c, pin):
		s.Pins.Put(pin) // the same tree, signed again
		l.Unchanged = true
		return l, nil
	}
	from := prev.N
	if reread(c, pin) {
		from = 0
	}
	if to.N-from > maxEntriesPerRead {
		return l, fmt.Errorf("log of %d entries: %d to read at once, more than %d", to.N, to.N-from, maxEntriesPerRead)
	}
	raw, err := r.verify(prev, to, from)
	if err != nil && r.derived {
		// Judge a failure on the peer's own tiles, not on ones derived
		// from what the pin kept: a fork shows as a fork.
		r = newTileReader(ctx, s.getter(p, &l.Requests), nil)
		raw, err = r.verify(prev, to, from)
	}
	if err != nil {
		return s.refused(p, pin, l, r, body, err)
	}
	entries, err := parseEntries(raw, pin.LastSeq, from == prev.N && from > 0)
	if err != nil {
		return s.refuse(p, pin, l, &logpin.Alarm{Kind: logpin.AlarmBadEntry, Detail: err.Error(), Checkpoints: []string{string(body)}})
	}
	a, err := s.follow(ctx, p, &l.Requests, pin, body, signed, raw, entries, from, prev.N)
	if err != nil {
		return l, err
	}
	if a != nil {
		return s.refuse(p, pin, l, a)
	}
	keepTiles(pin, r.rightmost())
	return s.accept(p, c, pin, l, body, to, entries), nil
}

// older judges a checkpoint smaller than the one accepted: staleness when
// it is one accepted before or a proof joins them, a fork when the proof
// fails.
func (s *Source) older(p source.Peer, pin *logpin.Pin, l *source.Listing, r *tileReader, prev, to tlog.Tree, body []byte) (*source.Listing, error) {
	l.Unchanged = true
	if slices.Contains(pin.Accepted, treeOf(to)) {
		return l, nil
	}
	err := consistent(tlog.TileHashReader(prev, r), to, prev)
	var fe *forkError
	switch {
	case errors.As(err, &fe):
		return s.refuse(p, pin, l, forkAlarm(pin, body, fe.Error()))
	case err != nil:
		s.Logf("peer %s: its log serves an older checkpoint (%d entries, %d accepted) no proof could be read for: taken as a stale copy: %v", p.Name, to.N, prev.N, err)
	}
	return l, nil
}

// refused turns a verification failure into the poll's failure (a fetch
// error) or an alarm.
func (s *Source) refused(p source.Peer, pin *logpin.Pin, l *source.Listing, r *tileReader, body []byte, err error) (*source.Listing, error) {
	var fe *forkError
	if errors.As(err, &fe) {
		return s.refuse(p, pin, l, forkAlarm(pin, body, fe.Error()))
	}
	ae := r.asAltered(err)
	if ae == nil {
		return l, fmt.Errorf("read log: %w", err)
	}
	a := &logpin.Alarm{Kind: ae.kind, Detail: ae.Error(), Checkpoints: []string{string(body)}, Files: r.evidence(ae.kind == logpin.AlarmAlteredEntry)}
	return s.refuse(p, pin, l, a)
}

// refuse records a on pin: the peer's entries are refused until a re-pin.
func (s *Source) refuse(p source.Peer, pin *logpin.Pin, l *source.Listing, a *logpin.Alarm) (*source.Listing, error) {
	a.At = s.Now
	pin.Alarm = a
	s.Pins.Put(pin)
	s.Logf("peer %s: log refused (%s): %s; its new entries wait until an operator runs `meshnode peers repin %s`", p.Name, a.Kind, a.Detail, p.Name)
	l.Unchanged = true
	return l, nil
}

// accept records checkpoint body (tree to) as accepted and lists entries.
func (s *Source) accept(p source.Peer, c *state.Cursor, pin *logpin.Pin, l *source.Listing, body []byte, to tlog.Tree, entries []manifest.Entry) *source.Listing {
	first := pin.LastSeq + 1
	if len(entries) > 0 {
		if entries[0].Seq < first {
			first = 1 // read from the start
		}
		pin.LastSeq = entries[len(entries)-1].Seq
	}
	pin.Checkpoint = string(body)
	if t := treeOf(to); len(pin.Accepted) == 0 || pin.Accepted[len(pin.Accepted)-1] != t {
		pin.Accepted = append(pin.Accepted, t)
		pin.Accepted = pin.Accepted[max(0, len(pin.Accepted)-logpin.KeepAccepted):]
	}
	s.Pins.Put(pin)
	m := &manifest.Manifest{Agent: p.Name, Sequence: pin.LastSeq, Entries: entries}
	l.Manifest = m
	if len(entries) > 0 {
		l.Read = state.Ranges{{From: first, To: pin.LastSeq}}
		times := make([]time.Time, len(entries))
		for i, e := range entries {
			times[i] = e.Submitted
		}
		if n := presence.Newest(times, s.Now); n.After(c.NewestEntry) {
			c.NewestEntry = n
		}
	}
	return l
}

// parseEntries reads the log's entries as MANIFEST rows; seqs rise, and
// above after when the entries continue the tree accepted before.
func parseEntries(raw [][]byte, after manifest.Seq, continued bool) ([]manifest.Entry, error) {
	out := make([]manifest.Entry, 0, len(raw))
	last := manifest.Seq(0)
	if continued {
		last = after
	}
	for _, b := range raw {
		e, err := translog.ParseEntry(b)
		if err != nil {
			return nil, err
		}
		if e.Seq <= last {
			return nil, fmt.Errorf("entry of seq %d after seq %d: a log's seqs rise", e.Seq, last)
		}
		last = e.Seq
		out = append(out, manifest.Entry{Seq: e.Seq, Hash: e.Hash, File: e.File, Type: e.Type, Submitted: e.Submitted})
	}
	return out, nil
}

// signatureAlarm says why a checkpoint did not open with the pinned key
// (a checkpoint signed by another key opens unverified: openCheckpoint).
func signatureAlarm(pin *logpin.Pin, body []byte, err error) *logpin.Alarm {
	return &logpin.Alarm{Kind: logpin.AlarmSignature, Detail: err.Error(), Checkpoints: append(nonEmpty(pin.Checkpoint), string(body))}
}

func forkAlarm(pin *logpin.Pin, body []byte, why string) *logpin.Alarm {
	return &logpin.Alarm{Kind: logpin.AlarmFork, Detail: why, Checkpoints: []string{pin.Checkpoint, string(body)}}
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// keptTiles returns the tiles p keeps, by tile.
func keptTiles(p *logpin.Pin) map[tlog.Tile][]byte {
	out := map[tlog.Tile][]byte{}
	for path, b64 := range p.Tiles {
		t, err := tlog.ParseTilePath(fmt.Sprintf("tile/%d/%s", translog.TileHeight, strings.TrimPrefix(path, "tile/")))
		data, derr := base64.StdEncoding.DecodeString(b64)
		if err == nil && derr == nil && t.L > 0 && len(data) == t.W*tlog.HashSize {
			out[t] = data
		}
	}
	return out
}

// keepTiles replaces the tiles p keeps.
func keepTiles(p *logpin.Pin, tiles map[tlog.Tile][]byte) {
	p.Tiles = make(map[string]string, len(tiles))
	for t, data := range tiles {
		p.Tiles[translog.TilePath(t)] = base64.StdEncoding.EncodeToString(data)
	}
}

// acceptedTree is the tree p last accepted, empty before any.
func acceptedTree(p *logpin.Pin) tlog.Tree {
	if len(p.Accepted) == 0 {
		return tlog.Tree{}
	}
	t := p.Accepted[len(p.Accepted)-1]
	root, _ := base64.StdEncoding.DecodeString(t.Root)
	var h tlog.Hash
	copy(h[:], root)
	return tlog.Tree{N: t.Size, Hash: h}
}

func treeOf(t tlog.Tree) logpin.Tree {
	return logpin.Tree{Size: t.N, Root: base64.StdEncoding.EncodeToString(t.Hash[:])}
}

// getter fetches files of p's log/, counting the requests in n.
func (s *Source) getter(p source.Peer, n *int) getFunc {
	return func(ctx context.Context, path string, max int64) ([]byte, error) {
		*n++
		resp, err := s.Client.Get(ctx, request(p, p.URL+node.LogDir+"/"+path, max))
		if err != nil {
			return nil, err
		}
		return resp.Body, nil
	}
}

func checkpointURL(p source.Peer) string {
	return p.URL + node.LogDir + "/" + translog.CheckpointFile
}

// request is a request for u, a file of p, of at most max bytes: it stays
// under p's base URL and behind its address guard.
func request(p source.Peer, u string, max int64) fetch.Request {
	return fetch.Request{URL: u, MaxBytes: max, Within: p.URL, Public: p.Public}
}

func isBundle(path string) bool { return strings.HasPrefix(path, "tile/entries/") }

func sortEvidence(e []logpin.Evidence) {
	slices.SortFunc(e, func(a, b logpin.Evidence) int { return strings.Compare(a.Path, b.Path) })
}
