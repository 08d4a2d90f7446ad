package relay

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/logtiles"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// What one read takes of a relay's log, unless the Reader says otherwise
// (docs/decisions.md, "Relays"): a bigger log, a relay read for the first
// time, is read over several heartbeats, every part verified against the
// relay's signed root.
const (
	// defaultMaxEntries is the entries taken a read: each costs a
	// signature check with the agent's key.
	defaultMaxEntries = 1 << 16
	// defaultMaxBytes is the bytes of tiles and bundles fetched a read,
	// past which the bundle read is the last: an honest relay's entry
	// is about 240 bytes, so a read takes about 34,000 entries and the
	// first read of a relay of 100,000 agents ends in 3 heartbeats,
	// while a hostile relay's entries of 4 KiB make a read fetch about
	// 11 MiB at most (the budget, and the bundles and tiles of one step).
	defaultMaxBytes = 8 << 20
)

// Relay is a relay a node reads: its base URL (its log is under log/)
// and its verifier key, named its origin (translog.Origin).
type Relay struct {
	URL string
	Key string
}

// Reader reads relays' logs into their Held state, and keeps the agent
// checkpoints they listed anew for the polls that follow (Checkpoint).
type Reader struct {
	Client *fetch.Client
	// Pins are the agents' pinned keys: the only keys a relayed
	// checkpoint is verified with.
	Pins *logpin.Pins
	// Known reports whether the node polls the agent at a URL; nil
	// knows every agent. Entries of other agents are passed over.
	Known func(url string) bool
	Now   time.Time
	// MaxEntries and MaxBytes bound one read of a relay's log: the
	// entries taken, and the bytes of tiles and bundles fetched, past
	// which the bundle read is the last; the rest is read at the next
	// reads. Zero is defaultMaxEntries, defaultMaxBytes.
	MaxEntries, MaxBytes int64
	// reading are the agent checkpoints the relay being read listed
	// anew, verbatim, by agent; fresh are those of every relay read
	// without a fault.
	reading map[string][]byte
	fresh   map[string]fresh
}

// fresh is an agent's newest checkpoint the relays listed in this read,
// and whether two of its size had different roots.
type fresh struct {
	body     []byte
	listed   Listed
	conflict bool
}

// Read reads what relay r added since h, verified, into h, and returns
// the requests it made. A relay that serves what no honest relay serves
// gets h.Fault and is not read again; a failure to fetch is the error,
// and h is as it was.
func (rd *Reader) Read(ctx context.Context, r Relay, h *Held) (int, error) {
	if h.Fault != nil {
		return 0, nil
	}
	rd.reading = map[string][]byte{}
	defer rd.keep(h)
	n := 0
	get := func(ctx context.Context, path string, max int64) ([]byte, error) {
		n++
		resp, err := rd.Client.Get(ctx, fetch.Request{URL: r.URL + node.LogDir + "/" + path, MaxBytes: max, Within: r.URL})
		if err != nil {
			return nil, err
		}
		return resp.Body, nil
	}
	resp, err := rd.Client.Get(ctx, fetch.Request{URL: r.URL + node.LogDir + "/" + translog.CheckpointFile,
		MaxBytes: translog.MaxCheckpointBytes, Within: r.URL, ETag: h.ETag, LastModified: h.LastModified})
	n++
	if err != nil {
		return n, fmt.Errorf("relay %s: %w", r.URL, err)
	}
	maxEntries, maxBytes := rd.caps()
	tr := tiles(ctx, get, maxBytes)
	if !resp.NotModified && string(resp.Body) != h.Checkpoint {
		if err := rd.advance(tr, r, h, resp.Body); err != nil || h.Fault != nil {
			return n, err
		}
	}
	h.ETag, h.LastModified = resp.ETag, resp.LastModified
	return n, rd.readEntries(tr, h, maxEntries)
}

// caps are the Reader's bounds on one read, defaults filled in.
func (rd *Reader) caps() (maxEntries, maxBytes int64) {
	maxEntries, maxBytes = rd.MaxEntries, rd.MaxBytes
	if maxEntries <= 0 {
		maxEntries = defaultMaxEntries
	}
	if maxBytes <= 0 {
		maxBytes = defaultMaxBytes
	}
	return maxEntries, maxBytes
}

// keep adds the checkpoints the read of h took anew to those the polls
// may take, unless h faulted: a faulted relay decides nothing.
func (rd *Reader) keep(h *Held) {
	if h.Fault != nil {
		return
	}
	if rd.fresh == nil {
		rd.fresh = map[string]fresh{}
	}
	for agent, body := range rd.reading {
		l := h.Agents[agent]
		f, ok := rd.fresh[agent]
		switch {
		case !ok || l.Size > f.listed.Size:
			rd.fresh[agent] = fresh{body: body, listed: l}
		case l.Size == f.listed.Size && l.Root != f.listed.Root:
			f.conflict = true
			rd.fresh[agent] = f
		}
	}
}

// Checkpoint returns the newest checkpoint of the agent at url that a
// relay listed anew in this Reader's reads, verified then with the
// agent's pinned key, verbatim; nil for none, or when two relays listed
// two of its size with different roots, which the agent's own
// checkpoint judges. A poll may read the agent's log under it instead of
// asking the agent for its checkpoint (logsource.Source.Relayed;
// docs/decisions.md, "Relays"). Safe for concurrent use once the reads
// are done.
func (rd *Reader) Checkpoint(url string) []byte {
	f, ok := rd.fresh[url]
	if !ok || f.conflict {
		return nil
	}
	return f.body
}

// advance accepts the relay's checkpoint body when it extends the tree
// held: a bad signature or a fork is a fault; an older tree is a stale
// copy, ignored.
func (rd *Reader) advance(tr *logtiles.Reader, r Relay, h *Held, body []byte) error {
	cp, err := translog.Open(body, r.Key)
	if err != nil {
		rd.fault(h, &Fault{Kind: FaultSignature, Detail: err.Error(), Checkpoints: nonEmpty(h.Checkpoint, string(body))})
		return nil
	}
	prev := heldTree(h)
	to := tlog.Tree{N: cp.Size, Hash: cp.Root}
	switch {
	case to.N < prev.N:
		return nil
	case to.N == prev.N && to.Hash != prev.Hash:
		rd.fault(h, &Fault{Kind: FaultFork, Detail: "two checkpoints of the same size with different roots", Checkpoints: []string{h.Checkpoint, string(body)}})
		return nil
	case to.N > prev.N && prev.N > 0:
		if err := tr.Consistent(prev, to); err != nil {
			return rd.failed(tr, h, err, body)
		}
	}
	h.Checkpoint, h.Size, h.Root = string(body), to.N, base64.StdEncoding.EncodeToString(to.Hash[:])
	return nil
}

// readEntries reads the entries of the tree held past h.Read, at most
// maxEntries and as many as tr's byte budget lets it, and takes each
// agent's checkpoint: the next read goes on where this one stopped.
func (rd *Reader) readEntries(tr *logtiles.Reader, h *Held, maxEntries int64) error {
	if h.Read >= h.Size {
		return nil
	}
	raw, err := tr.Verify(tlog.Tree{}, heldTree(h), h.Read, maxEntries)
	if err != nil {
		return rd.failed(tr, h, err, []byte(h.Checkpoint))
	}
	for _, b := range raw {
		e, err := ParseEntry(b)
		if err != nil {
			rd.fault(h, &Fault{Kind: FaultBadEntry, Detail: err.Error(), Checkpoints: []string{h.Checkpoint}, Entry: string(b)})
			return nil
		}
		rd.take(h, e)
	}
	h.Read += int64(len(raw))
	return nil
}

// take records e when the agent's pinned key verifies it, or holds it
// pending for Settle when the agent is not pinned yet or the key does not
// verify it: a relay never introduces a key. Agents the node does not
// poll are passed over.
func (rd *Reader) take(h *Held, e Entry) {
	if rd.Known != nil && !rd.Known(e.Agent) {
		return
	}
	pin := rd.Pins.Get(e.Agent)
	key := ""
	if pin != nil {
		key = pin.Key
	}
	cp, err := translog.Open(e.Checkpoint, key)
	if key == "" || err != nil {
		h.hold(e.Agent, string(e.Checkpoint), rd.Now)
		return
	}
	h.release(e.Agent)
	if listed(h, e.Agent, cp, rd.Now) {
		rd.reading[e.Agent] = e.Checkpoint
	}
}

// listed records cp as the agent's newest checkpoint on h, unless h
// listed a larger one before, and reports whether it did.
func listed(h *Held, agent string, cp translog.Checkpoint, now time.Time) bool {
	root := base64.StdEncoding.EncodeToString(cp.Root[:])
	if l, ok := h.Agents[agent]; ok && (l.Size > cp.Size || l.Size == cp.Size && l.Root == root) {
		return false
	}
	if h.Agents == nil {
		h.Agents = map[string]Listed{}
	}
	h.Agents[agent] = Listed{Size: cp.Size, Root: root, Seen: now}
	return true
}

// failed turns a failure of tr to verify the relay's log into a fault,
// as logtiles judges it, or a failure to fetch into the read's error.
func (rd *Reader) failed(tr *logtiles.Reader, h *Held, err error, body []byte) error {
	rf := tr.Judge(err)
	if rf == nil {
		return fmt.Errorf("relay %s: %w", h.URL, err)
	}
	kind := FaultAltered
	if rf.Kind == logtiles.Fork {
		kind = FaultFork
	}
	rd.fault(h, &Fault{Kind: kind, Detail: rf.Error(), Checkpoints: nonEmpty(h.Checkpoint, string(body))})
	return nil
}

func (rd *Reader) fault(h *Held, f *Fault) {
	f.At = rd.Now
	h.Fault = f
}

// heldTree is the relay tree h accepted, empty before any.
func heldTree(h *Held) tlog.Tree {
	root, _ := base64.StdEncoding.DecodeString(h.Root)
	var t tlog.Tree
	t.N = h.Size
	copy(t.Hash[:], root)
	return t
}

// nonEmpty is the non-empty ones of ss, once each.
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" && (len(out) == 0 || out[len(out)-1] != s) {
			out = append(out, s)
		}
	}
	return out
}
