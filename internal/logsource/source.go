package logsource

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/logtiles"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/presence"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/source"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/translog"
)

// probeEvery is how often, at most, a peer without a log has its
// IDENTITY.md read for a log key, on a poll that found news: a peer that
// starts publishing a log is read through it from its first news a day
// after the last look, and the others cost one request a day, not one
// every poll with news.
const probeEvery = 24 * time.Hour

// maxIdentityBytes bounds a peer's IDENTITY.md, read for its log_key:
// real ones are under 2 KiB.
const maxIdentityBytes = 64 << 10

// What one poll reads of a log, unless the Source says otherwise
// (docs/decisions.md, "Reading a peer's signed log"): a bigger log is
// read in chunks over several polls.
const (
	// defaultMaxEntries is the entries handed on a poll: the rows a poll
	// of a MANIFEST.md works on (heartbeat's maxEntriesPerPoll).
	defaultMaxEntries = 5000
	// defaultMaxBytes is the bytes of tiles and bundles fetched a poll,
	// as much as a MANIFEST.md may weigh (limits.manifest_bytes).
	defaultMaxBytes = 4 << 20
)

// maxEntriesRotated bounds the entries read at once under a checkpoint
// the pinned key does not sign: they must be read whole, to find the
// rotation that makes it acceptable, before any is handed on. A peer that
// changed keys and grew by more since our last poll fails the poll with a
// clear error. A variable so tests can lower it.
var maxEntriesRotated int64 = manifest.MaxRows

// Source reads the entries of peers that publish a signed log from it,
// and those of other peers through Manifest.
type Source struct {
	Client *fetch.Client
	// Manifest reads peers without a log (heartbeat's MANIFEST.md source).
	Manifest source.Source
	Pins     *logpin.Pins
	Now      time.Time
	Logf     func(format string, args ...any)
	// MaxEntries and MaxBytes bound one poll's read of a log: the entries
	// handed on, and the bytes of tiles and bundles fetched, past which
	// the bundle read is the last; the rest is read at the next polls.
	// Zero is defaultMaxEntries, defaultMaxBytes.
	MaxEntries, MaxBytes int64
	// Relayed, when set, gives the checkpoints relays listed: a poll
	// reads a pinned peer's news under one instead of asking the peer
	// for its checkpoint (fromRelay), and asks the peer again at least
	// every DirectPoll.
	Relayed    Relayed
	DirectPoll time.Duration
}

// Read reads p's new entries. A pinned peer is read from its log alone.
// Another is read through Manifest; when that finds news, and IDENTITY.md
// was not looked at in the last probeEvery, it is read for a log_key, and
// a peer that publishes one and log/checkpoint is pinned on that key and
// read from its log from then on.
func (s *Source) Read(ctx context.Context, p source.Peer, c *state.Cursor) (*source.Listing, error) {
	pin := s.Pins.Get(p.URL)
	switch {
	case pin == nil:
		pin = &logpin.Pin{URL: p.URL}
	case pin.Key != "":
		return s.readLog(ctx, p, c, pin, nil, 0)
	case pin.Repin:
		// An operator re-pinned it: look for the log before anything else.
		return s.discover(ctx, p, c, pin, nil, c.NewestEntry)
	}
	newest := c.NewestEntry
	l, err := s.Manifest.Read(ctx, p, c)
	if err != nil || l.Unchanged || s.Now.Before(c.LogProbed.Add(probeEvery)) {
		return l, err
	}
	c.LogProbed = s.Now
	return s.discover(ctx, p, c, pin, l, newest)
}

// discover reads p's IDENTITY.md and log/checkpoint; when it publishes
// a log key and the checkpoint exists, it pins the key and reads the
// log, dropping l (what the manifest gave) and the newest entry time the
// manifest's rows gave the cursor, back to newest: the log may lag the
// manifest (docs/protocol.md §3.4), and a row it does not hold dates
// nothing. Otherwise l stands, or, after a re-pin, MANIFEST.md is read.
func (s *Source) discover(ctx context.Context, p source.Peer, c *state.Cursor, pin *logpin.Pin, l *source.Listing, newest time.Time) (*source.Listing, error) {
	f, requests := s.probe(ctx, p)
	switch {
	case f.key != "":
		if l != nil && l.Release != nil {
			l.Release()
		}
		c.NewestEntry = newest
		s.Logf("peer %s: log key %s pinned on first contact", p.Name, f.key)
		if err := keyNamesOrigin(f.key, p.URL, declaredURL(l)); err != nil {
			s.Logf("peer %s: its log key may sign another agent's log, pinned all the same: %v", p.Name, err)
		}
		pin.Key, pin.Repin, pin.Mirrors = f.key, false, f.mirrors
		return s.readLog(ctx, p, c, pin, f.checkpoint, requests+requestsOf(l))
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
func (s *Source) probe(ctx context.Context, p source.Peer) (found, int) {
	id, err := s.Client.Get(ctx, request(p, p.URL+node.IdentityFile, maxIdentityBytes))
	if err != nil {
		if !fetch.IsKind(err, fetch.KindNotFound) {
			s.Logf("peer %s: %s not read, log key unknown: %v", p.Name, node.IdentityFile, err)
		}
		return found{}, 1
	}
	keys := translog.Keys(id.Body)
	if len(keys) == 0 {
		return found{}, 1
	}
	if _, err := note.NewVerifier(keys[0]); len(keys) > 1 || err != nil {
		s.Logf("peer %s: %s publishes %d %s lines, the first %q: not one key, no log read", p.Name, node.IdentityFile, len(keys), translog.IdentityKey, keys[0])
		return found{}, 1
	}
	cp, err := s.Client.Get(ctx, request(p, checkpointURL(p), translog.MaxCheckpointBytes))
	if err != nil {
		if !fetch.IsKind(err, fetch.KindNotFound) {
			s.Logf("peer %s: its log key is published, its checkpoint not read: %v", p.Name, err)
		}
		return found{}, 2
	}
	return found{key: keys[0], checkpoint: cp, mirrors: Mirrors(id.Body, p.URL)}, 2
}

// keyNamesOrigin checks that vkey is named for the log of the peer at
// one of urls: a C2SP key's name is its log's origin, and a node's origin
// is its URL without scheme and final slash (translog.Origin;
// docs/protocol.md §3.4), where its URL is the one it serves from or the
// one its MANIFEST.md declares (the conformance cases serve a log named
// for the latter elsewhere). A key named otherwise signs another log,
// which a peer that copied it could serve as its own; it is logged, not
// refused (docs/decisions.md, "A peer's log key named for another
// origin"). The names are compared in the form roster.NormalizeURL gives,
// so that a URL spelled otherwise (a host in capitals, a default port)
// still matches.
func keyNamesOrigin(vkey string, urls ...string) error {
	name := originOf(vkey)
	var want []string
	for _, u := range urls {
		o, err := canonicalOrigin(u)
		if err != nil {
			continue // no URL: nothing to match
		}
		scheme, _, _ := strings.Cut(u, "://")
		if got, err := canonicalOrigin(scheme + "://" + name + "/"); err == nil && got == o {
			return nil
		}
		want = append(want, o)
	}
	return fmt.Errorf("the key is named %q, not %s, the origin of the peer's URL", name, strings.Join(want, " nor "))
}

// declaredURL is the URL the peer's MANIFEST.md declares in l, "" when l
// holds none.
func declaredURL(l *source.Listing) string {
	if l == nil || l.Manifest == nil {
		return ""
	}
	return l.Manifest.URL
}

// canonicalOrigin is the log origin of url in its canonical spelling.
func canonicalOrigin(url string) (string, error) {
	c, err := roster.NormalizeURL(url)
	if err != nil {
		return "", err
	}
	return translog.Origin(c)
}

// found is what probe found of a peer's log: its key ("" for none), its
// checkpoint and its mirrors.
type found struct {
	key        string
	checkpoint *fetch.Response
	mirrors    []string
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
		if got, ok := s.fromRelay(ctx, p, c, pin, l); ok {
			return got, nil
		}
		req := request(p, checkpointURL(p), translog.MaxCheckpointBytes)
		req.ETag, req.LastModified = pin.ETag, pin.LastModified
		var err error
		cp, err = s.Client.Get(ctx, req)
		l.Requests++
		if fetch.IsKind(err, fetch.KindNotFound) {
			return s.refuse(p, pin, l, &logpin.Alarm{Kind: logpin.AlarmLogGone, Detail: "log/checkpoint is no longer served; a peer once read through its log is never read from MANIFEST.md alone", Checkpoints: nonEmpty(pin.Checkpoint)})
		}
		if isDown(err) && len(pin.Mirrors) > 0 {
			return s.fromMirrors(ctx, p, c, pin, l, err)
		}
		if err != nil {
			return l, err
		}
		l.RateLeft = cp.RateLimit.Remaining
	}
	s.originAnswered(pin)
	s.directRead(pin)
	pin.ETag, pin.LastModified = cp.ETag, cp.LastModified
	if cp.NotModified || string(cp.Body) == pin.Checkpoint {
		return s.resume(ctx, p, c, pin, l)
	}
	s.refreshMirrors(ctx, p, c, pin, l)
	return s.advance(ctx, p, c, pin, cp.Body, l)
}

// resume reads on in the tree accepted, when the poll wants entries of
// it (startOf); otherwise nothing changed.
func (s *Source) resume(ctx context.Context, p source.Peer, c *state.Cursor, pin *logpin.Pin, l *source.Listing) (*source.Listing, error) {
	at, ok := startOf(c, pin)
	if !ok {
		s.Pins.Put(pin)
		l.Unchanged = true
		return l, nil
	}
	tree := acceptedTree(pin)
	return s.read(ctx, p, c, pin, l, []byte(pin.Checkpoint), tree, tree, at, true)
}

// start is where a poll reads a log from: the index of the first entry
// it reads, and the seq of the entry before it (0 at the start).
type start struct {
	index int64
	after manifest.Seq
}

// startOf is where the poll reads the tree pin accepted from, and false
// when it wants nothing of it. A cursor that still wants entries the
// last read handed on (a poll that did not end, cut by the heartbeat's
// budget or deadline, or a file to retry) reads from that read's start,
// or from the log's start when it wants one before; otherwise a log not
// read whole reads on where the last read stopped.
func startOf(c *state.Cursor, pin *logpin.Pin) (start, bool) {
	switch {
	case wantsUpTo(c, pin.After):
		return start{}, true
	case wantsUpTo(c, pin.LastSeq):
		return start{index: pin.From, after: pin.After}, true
	case pin.Behind > 0:
		return start{index: pin.Size() - pin.Behind, after: pin.LastSeq}, true
	}
	return start{}, false
}

// wantsUpTo reports whether the poll of cursor c wants an entry of seq
// at most s: its cursor is below s, or it retries one.
func wantsUpTo(c *state.Cursor, s manifest.Seq) bool {
	if c.LastSeenSeq < s {
		return true
	}
	return slices.ContainsFunc(c.Retry, func(r manifest.Seq) bool { return r <= s })
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
	switch {
	case to.N < prev.N:
		r := s.tiles(ctx, p, &l.Requests, keptTiles(pin), 0)
		return s.older(p, pin, l, r, prev, to, body)
	case to.N == prev.N && to.Hash != prev.Hash:
		return s.refuse(p, pin, l, forkAlarm(pin, body, "two checkpoints of the same size with different roots"))
	case to.N == prev.N:
		return s.resume(ctx, p, c, pin, l) // the same tree, signed again
	}
	at, ok := startOf(c, pin)
	if !ok {
		at = start{index: prev.N, after: pin.LastSeq}
	}
	return s.read(ctx, p, c, pin, l, body, prev, to, at, signed)
}

// read verifies tree to (checkpoint body) against prev, the tree
// accepted, and reads its entries from at on (readTree); it accepts them,
// or refuses the log with the alarm they raise.
func (s *Source) read(ctx context.Context, p source.Peer, c *state.Cursor, pin *logpin.Pin, l *source.Listing, body []byte, prev, to tlog.Tree, at start, signed bool) (*source.Listing, error) {
	got, err := s.readTree(ctx, p, &l.Requests, pin, body, prev, to, at, signed)
	if err != nil {
		return l, err
	}
	if got.alarm != nil {
		return s.refuse(p, pin, l, got.alarm)
	}
	keepTiles(pin, got.tiles)
	return s.accept(p, c, pin, l, body, to, at, got.entries), nil
}

// treeRead is what readTree read of a tree: its entries and the tiles to
// keep, or the alarm that refuses them.
type treeRead struct {
	entries []manifest.Entry
	tiles   map[tlog.Tile][]byte
	alarm   *logpin.Alarm
}

// readTree verifies tree to (checkpoint body) against prev, the tree
// accepted, and reads its entries from at on, as many as one poll reads
// (MaxEntries, MaxBytes), counting its requests in n; under a checkpoint
// the pinned key does not sign (signed false) it reads them all
// (maxEntriesRotated), or fails. It changes pin only to follow a rotation
// it verified; an error is a failure to read the log now.
func (s *Source) readTree(ctx context.Context, p source.Peer, n *int, pin *logpin.Pin, body []byte, prev, to tlog.Tree, at start, signed bool) (treeRead, error) {
	maxEntries, maxBytes := s.caps()
	if !signed {
		maxEntries, maxBytes = maxEntriesRotated, 0
		if to.N-at.index > maxEntries {
			return treeRead{}, fmt.Errorf("log of %d entries under a key other than the pinned one: %d to read at once to find its rotation, more than %d", to.N, to.N-at.index, maxEntries)
		}
	}
	raw, r, err := s.verify(ctx, p, n, pin, prev, to, at.index, maxEntries, maxBytes)
	if err != nil {
		a, err := alarmOf(pin, r, body, err)
		return treeRead{alarm: a}, err
	}
	entries, err := parseEntries(raw, at.after, at.index > 0)
	if err != nil {
		return treeRead{alarm: &logpin.Alarm{Kind: logpin.AlarmBadEntry, Detail: err.Error(), Checkpoints: []string{string(body)}}}, nil
	}
	a, err := s.follow(ctx, p, n, pin, body, signed, raw, entries, at.index, checkedOf(pin))
	return treeRead{entries: entries, tiles: r.Rightmost(), alarm: a}, err
}

// verify reads the entries of tree to from index from on, within the
// caps, and checks that to extends prev. The tiles are derived from
// those the pin kept where they can be; a failure on derived tiles is
// judged again on the peer's own, so a fork shows as a fork.
func (s *Source) verify(ctx context.Context, p source.Peer, n *int, pin *logpin.Pin, prev, to tlog.Tree, from, maxEntries, maxBytes int64) ([][]byte, *logtiles.Reader, error) {
	r := s.tiles(ctx, p, n, keptTiles(pin), maxBytes)
	raw, err := r.Verify(prev, to, from, maxEntries)
	if err != nil && r.Derived() {
		r = s.tiles(ctx, p, n, nil, maxBytes)
		raw, err = r.Verify(prev, to, from, maxEntries)
	}
	return raw, r, err
}

// caps are the Source's bounds on one poll's read, defaults filled in.
func (s *Source) caps() (maxEntries, maxBytes int64) {
	maxEntries, maxBytes = s.MaxEntries, s.MaxBytes
	if maxEntries <= 0 {
		maxEntries = defaultMaxEntries
	}
	if maxBytes <= 0 {
		maxBytes = defaultMaxBytes
	}
	return maxEntries, maxBytes
}

// checkedOf is the index below which pin's key statements need no check:
// those of the tree read whole, or while a big log is read, Checked.
func checkedOf(pin *logpin.Pin) int64 {
	if pin.Behind > 0 {
		return pin.Checked
	}
	return pin.Size()
}

// older judges a checkpoint smaller than the one accepted: staleness when
// it is one accepted before or a proof joins them, a fork when the proof
// fails.
func (s *Source) older(p source.Peer, pin *logpin.Pin, l *source.Listing, r *logtiles.Reader, prev, to tlog.Tree, body []byte) (*source.Listing, error) {
	l.Unchanged = true
	if slices.Contains(pin.Accepted, treeOf(to)) {
		return l, nil
	}
	err := r.Consistent(to, prev)
	switch {
	case logtiles.IsFork(err):
		return s.refuse(p, pin, l, forkAlarm(pin, body, err.Error()))
	case err != nil:
		s.Logf("peer %s: its log serves an older checkpoint (%d entries, %d accepted) no proof could be read for: taken as a stale copy: %v", p.Name, to.N, prev.N, err)
	}
	return l, nil
}

// refuse records a on pin: the peer's entries are refused until a re-pin.
// Served by a mirror, only a fork (two histories the peer's key signed)
// is the peer's; anything else is the mirror's fault (mirrorFault).
func (s *Source) refuse(p source.Peer, pin *logpin.Pin, l *source.Listing, a *logpin.Alarm) (*source.Listing, error) {
	if servedByMirror(p, pin) && a.Kind != logpin.AlarmFork {
		return l, s.mirrorFault(p, pin, a)
	}
	a.At = s.Now
	pin.Alarm = a
	s.Pins.Put(pin)
	s.Logf("peer %s: log refused (%s): %s; its new entries wait until an operator runs `meshnode peers repin %s`", p.Name, a.Kind, a.Detail, p.Name)
	l.Unchanged = true
	return l, nil
}

// accept records checkpoint body (tree to) as accepted, the read from at
// as done, and lists entries.
func (s *Source) accept(p source.Peer, c *state.Cursor, pin *logpin.Pin, l *source.Listing, body []byte, to tlog.Tree, at start, entries []manifest.Entry) *source.Listing {
	end := at.index + int64(len(entries))
	checked := checkedOf(pin)
	if len(pin.Accepted) == 0 {
		checked = to.N // trusted on first use
	}
	pin.From, pin.After, pin.Behind = at.index, at.after, to.N-end
	pin.Checked = 0
	if pin.Behind > 0 {
		pin.Checked = max(checked, end)
	}
	if len(entries) > 0 {
		pin.LastSeq = entries[len(entries)-1].Seq
	}
	pin.Checkpoint = string(body)
	if t := treeOf(to); len(pin.Accepted) == 0 || pin.Accepted[len(pin.Accepted)-1] != t {
		pin.Accepted = append(pin.Accepted, t)
		pin.Accepted = pin.Accepted[max(0, len(pin.Accepted)-logpin.KeepAccepted):]
	}
	s.Pins.Put(pin)
	if pin.Behind > 0 {
		s.Logf("peer %s: %s", p.Name, logpin.State(pin))
	}
	l.Manifest = &manifest.Manifest{Agent: p.Name, Sequence: pin.LastSeq, Entries: entries}
	l.Truncated = pin.Behind > 0
	if len(entries) > 0 {
		l.Read = state.Ranges{{From: at.after + 1, To: pin.LastSeq}}
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
func (s *Source) getter(p source.Peer, n *int) logtiles.Get {
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
