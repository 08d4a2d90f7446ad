package logsource

import (
	"slices"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// relayedBy is what relays listed, by agent URL.
type relayedBy map[string][]byte

func (r relayedBy) Checkpoint(url string) []byte { return r[url] }

// relayed sets the checkpoint the relays list of r's peer.
func (r *reader) relayed(cp []byte) {
	r.src.Relayed, r.src.DirectPoll = relayedBy{r.peer.URL: cp}, 24*time.Hour
}

// checkpointOf is the checkpoint of a log of entries signed with skey.
func checkpointOf(t *testing.T, entries []translog.Entry, skey string) []byte {
	t.Helper()
	files, err := translog.Update(nil, entries, skey)
	if err != nil {
		t.Fatal(err)
	}
	return files[translog.CheckpointFile]
}

// TestRelayedCheckpointSavesTheCheckpointRequest: news a relay listed is
// read under the relay's checkpoint, verified with the pinned key: the
// poll asks the peer for its bundle alone. The next poll without news
// asks the peer for its own checkpoint, whole (the validators were the
// older one's), and finds the same.
func TestRelayedCheckpointSavesTheCheckpointRequest(t *testing.T) {
	h := newPeerHost(t)
	r, all := pinned(t, h)
	all = append(all, entriesN(301, 1, "x")...)
	h.publish(t, all, h.skey)
	cp := h.get(node.LogDir + "/" + translog.CheckpointFile)
	r.relayed(cp)
	l := r.read(t)
	n, by := h.total()
	if !slices.Equal(seqsOf(l), []manifest.Seq{301}) || n != 1 || l.Requests != 1 || by[node.LogDir+"/"+translog.CheckpointFile] != 0 {
		t.Fatalf("relayed news: seqs %v, %d requests %v (%d counted)", seqsOf(l), n, by, l.Requests)
	}
	if p := r.pin(); p.Checkpoint != string(cp) || !p.RelayedSince.Equal(testNow) || p.ETag != "" {
		t.Fatalf("pin after relayed news: %+v", p)
	}
	r.src.Now = testNow.Add(24 * time.Hour)
	l = r.read(t)
	n, by = h.total()
	if !l.Unchanged || n != 1 || by[node.LogDir+"/"+translog.CheckpointFile] != 1 || !r.pin().RelayedSince.IsZero() {
		t.Fatalf("direct poll: unchanged %v, %d requests %v, relayed since %v", l.Unchanged, n, by, r.pin().RelayedSince)
	}
}

// TestRelayedCheckpointThatIsNoNewsOfThePinIsNotTaken: a relayed
// checkpoint older than the one accepted, of its size with another root,
// larger but forking from it, or signed by a key other than the pinned
// one, is not taken: the poll asks the peer for its own checkpoint and
// judges that, raising no alarm and never moving the pin back.
func TestRelayedCheckpointThatIsNoNewsOfThePinIsNotTaken(t *testing.T) {
	cases := []struct {
		name  string
		relay func(t *testing.T, h *peerHost, all []translog.Entry) []byte
		grow  bool // the peer grew by one entry
	}{
		{"older", func(t *testing.T, h *peerHost, all []translog.Entry) []byte {
			return checkpointOf(t, all[:299], h.skey)
		}, false},
		{"same size, another root", func(t *testing.T, h *peerHost, _ []translog.Entry) []byte {
			return checkpointOf(t, entriesN(1, 300, "fork"), h.skey)
		}, false},
		{"larger, forking", func(t *testing.T, h *peerHost, _ []translog.Entry) []byte {
			return checkpointOf(t, entriesN(1, 301, "fork"), h.skey)
		}, true},
		{"another key", func(t *testing.T, h *peerHost, all []translog.Entry) []byte {
			skey, _ := newKey(t, h)
			return checkpointOf(t, all, skey)
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newPeerHost(t)
			r, all := pinned(t, h)
			if tc.grow {
				all = append(all, entriesN(301, 1, "x")...)
				h.publish(t, all, h.skey)
			}
			r.relayed(tc.relay(t, h, all))
			l := r.read(t)
			_, by := h.total()
			p := r.pin()
			if by[node.LogDir+"/"+translog.CheckpointFile] != 1 || p.Alarm != nil || !p.RelayedSince.IsZero() {
				t.Fatalf("requests %v, alarm %+v, relayed since %v", by, p.Alarm, p.RelayedSince)
			}
			if want := h.get(node.LogDir + "/" + translog.CheckpointFile); p.Checkpoint != string(want) || p.Size() != int64(len(all)) {
				t.Fatalf("pin holds a checkpoint of %d entries, not the peer's own", p.Size())
			}
			if tc.grow != (len(seqsOf(l)) == 1) {
				t.Fatalf("seqs %v", seqsOf(l))
			}
		})
	}
}

// TestPeerIsAskedForItsCheckpointAtLeastEveryDirectPoll: relayed news
// is taken without asking the peer for its checkpoint only within
// DirectPoll of the first taken since the peer's own was read, so that
// a relay listing old checkpoints, one after another, cannot keep the
// node from the peer's newest for longer.
func TestPeerIsAskedForItsCheckpointAtLeastEveryDirectPoll(t *testing.T) {
	h := newPeerHost(t)
	r, all := pinned(t, h)
	asked := func(at time.Duration) bool {
		all = append(all, entriesN(len(all)+1, 1, "x")...)
		h.publish(t, all, h.skey)
		r.relayed(h.get(node.LogDir + "/" + translog.CheckpointFile))
		r.src.Now = testNow.Add(at)
		if l := r.read(t); len(seqsOf(l)) != 1 {
			t.Fatalf("+%s: seqs %v", at, seqsOf(l))
		}
		_, by := h.total()
		return by[node.LogDir+"/"+translog.CheckpointFile] > 0
	}
	for _, tc := range []struct {
		at    time.Duration
		asked bool
	}{
		{0, false},
		{12 * time.Hour, false},
		{24*time.Hour - time.Minute, false},
		{24 * time.Hour, true}, // a day after the first relayed one taken
		{25 * time.Hour, false},
	} {
		if got := asked(tc.at); got != tc.asked {
			t.Fatalf("+%s: peer asked for its checkpoint %v, want %v", tc.at, got, tc.asked)
		}
	}
}

// TestRelayedNewsWithTheOriginDownIsReadFromAMirror: with the origin
// down, news a relay listed is read from the peer's mirror as without a
// relay; once the node reads from mirrors, relayed checkpoints wait for
// the origin.
func TestRelayedNewsWithTheOriginDownIsReadFromAMirror(t *testing.T) {
	h, m := newPeerHost(t), newPeerHost(t)
	r, all := mirrored(t, h, m)
	for i, from := range []int{301, 321} {
		all = append(all, entriesN(from, 20, "x")...)
		h.publish(t, all, h.skey)
		m.mirror(h)
		h.setDown(true)
		r.relayed(h.get(node.LogDir + "/" + translog.CheckpointFile))
		l := r.read(t)
		_, by := h.total()
		tiles := 0
		for p, n := range by {
			if p != node.LogDir+"/"+translog.CheckpointFile {
				tiles += n
			}
		}
		if !slices.Equal(seqsOf(l), seqRange(from, from+19)) || l.Mirror != m.base() || r.pin().Alarm != nil {
			t.Fatalf("poll %d: seqs %v, mirror %q, alarm %+v", i, seqsOf(l), l.Mirror, r.pin().Alarm)
		}
		if i == 1 && tiles != 0 {
			t.Fatalf("read from mirrors, the origin was asked for its tiles under a relayed checkpoint: %v", by)
		}
	}
}

// TestRelayedCheckpointIsReadWithinThePollsBudget: a relayed checkpoint
// far ahead is read in chunks like the peer's own, the rest under it at
// the next polls, which ask the peer for its checkpoint.
func TestRelayedCheckpointIsReadWithinThePollsBudget(t *testing.T) {
	h := newPeerHost(t)
	r, all := pinned(t, h)
	r.src.MaxEntries = 300
	all = append(all, entriesN(301, 700, "x")...)
	h.publish(t, all, h.skey)
	r.relayed(h.get(node.LogDir + "/" + translog.CheckpointFile))
	l := r.read(t)
	if !slices.Equal(seqsOf(l), seqRange(301, 600)) || !l.Truncated || r.pin().Behind != 400 {
		t.Fatalf("first chunk: %d entries, truncated %v, behind %d", len(seqsOf(l)), l.Truncated, r.pin().Behind)
	}
	seqs, _ := catchUp(t, r, 5)
	if !slices.Equal(seqs, seqRange(601, 1000)) {
		t.Fatalf("%d entries read after the first chunk", len(seqs))
	}
}
