package logsource

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// catchUp polls r until a poll lists nothing new (at most polls times)
// and returns the seqs listed, in order, and how many polls listed some.
func catchUp(t *testing.T, r *reader, polls int) ([]manifest.Seq, int) {
	t.Helper()
	var seqs []manifest.Seq
	for i := range polls {
		l := r.read(t)
		if l.Unchanged {
			return seqs, i
		}
		seqs = append(seqs, seqsOf(l)...)
	}
	t.Fatalf("still reading after %d polls: %d entries", polls, len(seqs))
	return nil, 0
}

func seqRange(from, to int) []manifest.Seq {
	var out []manifest.Seq
	for i := from; i <= to; i++ {
		out = append(out, manifest.Seq(i))
	}
	return out
}

// TestBigLogIsReadInChunksAcrossPolls: a log larger than what one poll
// reads is read whole over several polls, each entry handed on once and
// in order, the peer shown catching up meanwhile; before, such a poll
// failed at every try and the peer stayed unread.
func TestBigLogIsReadInChunksAcrossPolls(t *testing.T) {
	h := newPeerHost(t)
	h.publish(t, entriesN(1, 1000, "x"), h.skey)
	r := newReader(t, h)
	r.src.MaxEntries = 300
	l := r.read(t)
	if !slices.Equal(seqsOf(l), seqRange(1, 300)) || !l.Truncated {
		t.Fatalf("first poll: %d entries, truncated %v", len(seqsOf(l)), l.Truncated)
	}
	if got := logpin.State(r.pin()); got != "log: 300 of 1000 entries read" {
		t.Fatalf("state %q", got)
	}
	seqs, polls := catchUp(t, r, 10)
	if !slices.Equal(seqs, seqRange(301, 1000)) || polls != 3 {
		t.Fatalf("caught up in %d polls: %d entries %v…", polls, len(seqs), seqs[:min(5, len(seqs))])
	}
	if got := logpin.State(r.pin()); got != "log: 1000 entries verified" {
		t.Fatalf("state %q", got)
	}
	if n, _ := h.total(); n == 0 {
		t.Fatal("no request counted")
	}
	if l := r.read(t); !l.Unchanged || l.Requests != 1 {
		t.Fatalf("idle after catching up: %+v", l)
	}
}

// TestLogGrowingWhileCaughtUpIsReadOn: a checkpoint that grew between
// chunks is verified against the one accepted and the reading goes on
// under it, every entry once.
func TestLogGrowingWhileCaughtUpIsReadOn(t *testing.T) {
	h := newPeerHost(t)
	all := entriesN(1, 700, "x")
	h.publish(t, all, h.skey)
	r := newReader(t, h)
	r.src.MaxEntries = 300
	seqs := seqsOf(r.read(t))
	all = append(all, entriesN(701, 400, "x")...)
	h.grow(t, all, h.skey)
	more, _ := catchUp(t, r, 10)
	if seqs = append(seqs, more...); !slices.Equal(seqs, seqRange(1, 1100)) {
		t.Fatalf("%d entries read", len(seqs))
	}
}

// TestLogReadHonoursTheByteBudget: the tiles and bundles one poll
// fetches stop at the byte budget (the bundle that crosses it is the
// last), counted on what the host served.
func TestLogReadHonoursTheByteBudget(t *testing.T) {
	h := newPeerHost(t)
	h.publish(t, entriesN(1, 3000, "x"), h.skey)
	bundle := int64(len(h.get(node.LogDir + "/tile/entries/000")))
	r := newReader(t, h)
	r.src.MaxBytes = 2 * bundle
	var seqs []manifest.Seq
	for i := 0; i < 20; i++ {
		l := r.read(t)
		served := h.tileBytes()
		if l.Unchanged {
			break
		}
		// The budget, one bundle past it, and the hash tiles of the path.
		if limit := r.src.MaxBytes + bundle + 3*maxHashTileBytes; served > limit {
			t.Fatalf("poll %d: %d bytes of tiles and bundles served, budget %d", i, served, r.src.MaxBytes)
		}
		seqs = append(seqs, seqsOf(l)...)
	}
	if !slices.Equal(seqs, seqRange(1, 3000)) {
		t.Fatalf("%d entries read", len(seqs))
	}
}

// TestChunkedReadCatchesTamperingInALaterChunk: an altered bundle past
// the first chunk, and a fork published between chunks, are alarms like
// any, with nothing of them listed.
func TestChunkedReadCatchesTamperingInALaterChunk(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, h *peerHost, all []translog.Entry)
		kind   string
	}{
		{"altered entry", func(t *testing.T, h *peerHost, all []translog.Entry) {
			path := node.LogDir + "/tile/entries/002"
			b := h.get(path)
			h.set(path, []byte(strings.Replace(string(b), "traces/t-0600.md", "traces/t-9999.md", 1)))
		}, logpin.AlarmAlteredEntry},
		{"fork", func(t *testing.T, h *peerHost, all []translog.Entry) {
			forked := append(slices.Clone(all), entriesN(1001, 100, "x")...)
			forked[4] = entriesN(5, 1, "rewritten")[0]
			h.publish(t, forked, h.skey)
		}, logpin.AlarmFork},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newPeerHost(t)
			all := entriesN(1, 1000, "x")
			h.publish(t, all, h.skey)
			r := newReader(t, h)
			r.src.MaxEntries = 300
			r.read(t)
			tc.tamper(t, h, all)
			var listed []manifest.Seq
			for range 4 {
				listed = append(listed, seqsOf(r.read(t))...)
			}
			p := r.pin()
			if p.Alarm == nil || p.Alarm.Kind != tc.kind {
				t.Fatalf("alarm %+v, listed %d entries", p.Alarm, len(listed))
			}
			if slices.Contains(listed, 600) || len(listed) > 300 {
				t.Fatalf("listed %d entries up to %v", len(listed), listed[len(listed)-1])
			}
		})
	}
}

// TestInterruptedChunkIsReadAgain: a poll whose cursor was not saved
// (the run ended between the cursors and the pins) leaves its chunk to be
// read again, and a chunk the poll cut (the heartbeat's budget) is read
// again from where the cursor stopped being satisfied.
func TestInterruptedChunkIsReadAgain(t *testing.T) {
	h := newPeerHost(t)
	h.publish(t, entriesN(1, 1000, "x"), h.skey)
	r := newReader(t, h)
	r.src.MaxEntries = 300
	r.read(t)
	r.read(t)
	r.cur.LastSeenSeq = 300 // the second poll's cursor was lost
	l := r.read(t)
	if got := seqsOf(l); len(got) == 0 || got[0] != 301 || got[len(got)-1] < 600 {
		t.Fatalf("after a lost cursor: %v…", got[:min(3, len(got))])
	}
	r.cur.LastSeenSeq = 450 // the heartbeat took half of a chunk
	rest, _ := catchUp(t, r, 10)
	if i := slices.Index(rest, 451); i < 0 || !slices.Equal(rest[i:], seqRange(451, 1000)) {
		t.Fatalf("after a cut chunk: %d entries from %s", len(rest), fmt.Sprint(rest[:min(3, len(rest))]))
	}
}
