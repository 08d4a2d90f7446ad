package logsource

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/translog"
)

// pinned returns a reader that pinned h's log of 300 entries on first
// contact, and those entries.
func pinned(t *testing.T, h *peerHost) (*reader, []translog.Entry) {
	t.Helper()
	all := entriesN(1, 300, "x")
	h.publish(t, all, h.skey)
	r := newReader(t, h)
	l := r.read(t)
	if got := len(seqsOf(l)); got != 300 || r.pin().Key != h.vkey {
		t.Fatalf("first contact: %d entries, pin %+v", got, r.pin())
	}
	h.total()
	return r, all
}

func TestLogPeerIsPinnedOnFirstContactAndReadIncrementally(t *testing.T) {
	h := newPeerHost(t)
	r, all := pinned(t, h)
	if r.man.reads != 1 {
		t.Fatalf("manifest read %d times, want once (first contact)", r.man.reads)
	}
	p := r.pin()
	if p.LastSeq != 300 || len(p.Accepted) != 1 || p.Accepted[0].Size != 300 {
		t.Fatalf("pin %+v", p)
	}

	// Nothing new: one conditional request, answered 304.
	l := r.read(t)
	if n, _ := h.total(); !l.Unchanged || n != 1 || l.Requests != 1 {
		t.Fatalf("idle poll: unchanged %v, %d requests (%d counted)", l.Unchanged, n, l.Requests)
	}

	// One new entry: the checkpoint and its bundle; the hash tile above
	// is derived from the one the pin kept.
	all = append(all, entriesN(301, 1, "x")...)
	h.publish(t, all, h.skey)
	l = r.read(t)
	n, by := h.total()
	if !slices.Equal(seqsOf(l), []manifest.Seq{301}) || n != 2 || l.Requests != 2 {
		t.Fatalf("one new entry: seqs %v, %d requests %v (%d counted)", seqsOf(l), n, by, l.Requests)
	}
	if !slices.Equal(l.Read, state.Ranges{{From: 301, To: 301}}) || l.Manifest.Sequence != 301 {
		t.Fatalf("read %v, sequence %d", l.Read, l.Manifest.Sequence)
	}
	if r.man.reads != 1 {
		t.Fatalf("a pinned peer's MANIFEST.md was read: %d reads", r.man.reads)
	}
}

// TestFirstContactDatesThePeerByItsLogAlone reads a peer whose
// MANIFEST.md lists a row its log does not hold yet (a log may lag,
// docs/protocol.md §3.4), dated after every entry: the first contact
// reads the log alone, so the peer's newest entry, which its presence
// rests on, is the log's newest, not the unread row's.
func TestFirstContactDatesThePeerByItsLogAlone(t *testing.T) {
	h := newPeerHost(t)
	all := entriesN(1, 3, "x")
	h.publish(t, all, h.skey)
	r := newReader(t, h)
	r.man.newest = all[2].Submitted.Add(24 * time.Hour)
	if got := seqsOf(r.read(t)); !slices.Equal(got, []manifest.Seq{1, 2, 3}) || r.pin().Key != h.vkey {
		t.Fatalf("first contact read %v, pin %+v", got, r.pin())
	}
	if !r.cur.NewestEntry.Equal(all[2].Submitted) {
		t.Fatalf("newest entry %v, want the log's newest %v, not the manifest's unread row's %v", r.cur.NewestEntry, all[2].Submitted, r.man.newest)
	}
}

// TestCatchingUpCostsTheCheckpointAndTheNewBundles holds issue 23's
// target: catching up n entries costs at most 2 + ceil(n/256) requests
// besides the files, the checkpoint and the bundles the new entries are
// in; the hash tiles are derived from those the pin kept.
func TestCatchingUpCostsTheCheckpointAndTheNewBundles(t *testing.T) {
	h := newPeerHost(t)
	r, all := pinned(t, h)
	for _, n := range []int{1, 255, 256, 600} {
		all = append(all, entriesN(len(all)+1, n, "x")...)
		h.publish(t, all, h.skey)
		l := r.read(t)
		got, by := h.total()
		if len(seqsOf(l)) != n || got > 2+(n+255)/256 || n == 1 && got != 2 {
			t.Errorf("%d new: %d entries read with %d requests %v", n, len(seqsOf(l)), got, by)
		}
	}
}

func TestPeerWithoutLogIsReadFromManifestAlone(t *testing.T) {
	h := newPeerHost(t)
	h.set(node.IdentityFile, []byte("# IDENTITY\n\nname: a\n"))
	r := newReader(t, h)
	l := r.read(t)
	if !slices.Equal(seqsOf(l), []manifest.Seq{1}) || r.pin() != nil || l.Requests != 2 {
		t.Fatalf("seqs %v, pin %+v, %d requests", seqsOf(l), r.pin(), l.Requests)
	}
	// A key without a checkpoint is no log either.
	h.set(node.IdentityFile, []byte("log_key: "+h.vkey+"\n"))
	r.src.Now = testNow.Add(probeEvery)
	if l := r.read(t); !slices.Equal(seqsOf(l), []manifest.Seq{1}) || r.pin() != nil || l.Requests != 3 {
		t.Fatalf("key without checkpoint: seqs %v, pin %+v, %d requests", seqsOf(l), r.pin(), l.Requests)
	}
}

// TestPeerWithoutLogCostsOneIdentityLookADay: news from a peer without a
// log has its IDENTITY.md read at most once a day (probeEvery), and a
// peer that starts publishing a log is read through it at its first news
// a day after the last look.
func TestPeerWithoutLogCostsOneIdentityLookADay(t *testing.T) {
	h := newPeerHost(t)
	h.set(node.IdentityFile, []byte("# IDENTITY\n\nname: a\n"))
	r := newReader(t, h)
	for i, tc := range []struct {
		after    time.Duration
		requests int
	}{
		{0, 2},                         // first contact: MANIFEST.md, IDENTITY.md
		{time.Hour, 1},                 // news within the day: MANIFEST.md alone
		{probeEvery - time.Second, 1},  // still within it
		{probeEvery, 2},                // a day after the last look
		{probeEvery + 23*time.Hour, 1}, // within the next day
	} {
		r.src.Now = testNow.Add(tc.after)
		if l := r.read(t); l.Requests != tc.requests || r.pin() != nil {
			t.Fatalf("poll %d (+%s): %d requests, want %d", i, tc.after, l.Requests, tc.requests)
		}
		h.total()
	}
	h.set(node.IdentityFile, []byte(translog.IdentityKey+": "+h.vkey+"\n"))
	h.publish(t, entriesN(1, 3, "x"), h.skey)
	r.src.Now = testNow.Add(2 * probeEvery)
	if l := r.read(t); len(seqsOf(l)) != 3 || r.pin() == nil || r.pin().Key != h.vkey {
		t.Fatalf("a log started: %v, pin %+v", seqsOf(l), r.pin())
	}
}

// tamper cases: each serves altered bytes after a log of 300 entries was
// pinned, and must end in its alarm, nothing listed, evidence kept, and
// no request at all at the next poll.
func TestTamperedLogIsRefusedWithEvidence(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, h *peerHost, all []translog.Entry)
		kind   string
		// checkpoints is how many signed checkpoints the evidence holds.
		checkpoints int
		files       bool
	}{
		{"fork", func(t *testing.T, h *peerHost, all []translog.Entry) {
			forked := append(slices.Clone(all), entriesN(301, 1, "x")...)
			forked[4] = entriesN(5, 1, "rewritten")[0]
			h.publish(t, forked, h.skey)
		}, logpin.AlarmFork, 2, false},
		{"fork at the same size", func(t *testing.T, h *peerHost, all []translog.Entry) {
			forked := slices.Clone(all)
			forked[299] = entriesN(300, 1, "rewritten")[0]
			h.publish(t, forked, h.skey)
		}, logpin.AlarmFork, 2, false},
		{"altered entry", func(t *testing.T, h *peerHost, all []translog.Entry) {
			h.publish(t, append(slices.Clone(all), entriesN(301, 1, "x")...), h.skey)
			path := node.LogDir + "/tile/entries/001.p/45"
			b := h.get(path)
			h.set(path, []byte(strings.Replace(string(b), "traces/t-0301.md", "traces/t-9999.md", 1)))
		}, logpin.AlarmAlteredEntry, 1, true},
		{"bad signature", func(t *testing.T, h *peerHost, all []translog.Entry) {
			h.publish(t, append(slices.Clone(all), entriesN(301, 1, "x")...), h.skey)
			cp := string(h.get(node.LogDir + "/checkpoint"))
			i := strings.LastIndex(cp, " ") + 10
			b := []byte(cp)
			b[i] ^= 2 // a base64 letter of the signature, after the key hash
			h.set(node.LogDir+"/checkpoint", b)
		}, logpin.AlarmSignature, 2, false},
		{"key change without rotation", func(t *testing.T, h *peerHost, all []translog.Entry) {
			origin, _ := translog.Origin(h.base())
			skey, vkey, err := translog.GenerateKey(origin)
			if err != nil {
				t.Fatal(err)
			}
			h.set(node.IdentityFile, []byte("log_key: "+vkey+"\n"))
			h.publish(t, append(slices.Clone(all), entriesN(301, 1, "x")...), skey)
		}, logpin.AlarmKeyChange, 2, false},
		{"downgrade to MANIFEST.md only", func(t *testing.T, h *peerHost, all []translog.Entry) {
			h.publish(t, nil, h.skey)
			h.set(node.LogDir+"/checkpoint", nil)
		}, logpin.AlarmLogGone, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newPeerHost(t)
			r, all := pinned(t, h)
			accepted := r.pin().Checkpoint
			tc.tamper(t, h, all)
			l := r.read(t)
			p := r.pin()
			if !l.Unchanged || l.Manifest != nil || p.Alarm == nil || p.Alarm.Kind != tc.kind {
				t.Fatalf("listing %+v, alarm %+v", l, p.Alarm)
			}
			a := p.Alarm
			if len(a.Checkpoints) != tc.checkpoints || a.Checkpoints[0] != accepted && tc.checkpoints == 2 {
				t.Fatalf("evidence: %d checkpoints %q, want %d starting with the one accepted", len(a.Checkpoints), a.Checkpoints, tc.checkpoints)
			}
			if tc.files != (len(a.Files) > 0) {
				t.Fatalf("evidence files %+v", a.Files)
			}
			if p.Checkpoint != accepted || p.LastSeq != 300 {
				t.Fatalf("the accepted checkpoint moved: %d", p.LastSeq)
			}
			h.total()
			if l := r.read(t); !l.Unchanged || l.Manifest != nil || l.Requests != 0 || r.man.reads != 1 {
				t.Fatalf("after the alarm: %+v, manifest reads %d", l, r.man.reads)
			}
			if n, by := h.total(); n != 0 {
				t.Fatalf("after the alarm: %d requests %v", n, by)
			}
		})
	}
}

// TestAlteredTileIsRefused: a hash tile is read at first contact (later
// polls derive the tiles from those the pin kept), and one that does not
// hash to the signed root is refused with its evidence.
func TestAlteredTileIsRefused(t *testing.T) {
	h := newPeerHost(t)
	h.publish(t, entriesN(1, 300, "x"), h.skey)
	path := node.LogDir + "/tile/1/000.p/1"
	b := slices.Clone(h.get(path))
	b[0] ^= 1
	h.set(path, b)
	r := newReader(t, h)
	l := r.read(t)
	p := r.pin()
	if l.Manifest != nil || p == nil || p.Alarm == nil || p.Alarm.Kind != logpin.AlarmAlteredTile {
		t.Fatalf("listing %+v, pin %+v", l, p)
	}
	if len(p.Alarm.Checkpoints) != 1 || len(p.Alarm.Files) != 1 || p.Alarm.Files[0].Path != "tile/1/000.p/1" || p.Alarm.Files[0].SHA256 != manifest.HashBytes(b) {
		t.Fatalf("evidence %+v", p.Alarm)
	}
}

func TestStaleCheckpointIsStalenessNotAnAlarm(t *testing.T) {
	h := newPeerHost(t)
	r, all := pinned(t, h)
	old := h.publish(t, all, h.skey)
	all = append(all, entriesN(301, 20, "x")...)
	h.publish(t, all, h.skey)
	if l := r.read(t); len(seqsOf(l)) != 20 {
		t.Fatalf("growth: %v", seqsOf(l))
	}
	// A cache serves the checkpoint accepted before.
	h.set(node.LogDir+"/checkpoint", old[translog.CheckpointFile])
	if l := r.read(t); !l.Unchanged || r.pin().Alarm != nil || r.pin().LastSeq != 320 {
		t.Fatalf("stale copy: %+v, alarm %+v", l, r.pin().Alarm)
	}
	// An older checkpoint never accepted, proven consistent by the tiles
	// of the tree accepted.
	mid, err := translog.Update(nil, all[:310], h.skey)
	if err != nil {
		t.Fatal(err)
	}
	h.set(node.LogDir+"/checkpoint", mid[translog.CheckpointFile])
	if l := r.read(t); !l.Unchanged || r.pin().Alarm != nil {
		t.Fatalf("older, consistent: %+v, alarm %+v", l, r.pin().Alarm)
	}
	// An older checkpoint of another history is a fork.
	other := slices.Clone(all[:310])
	other[3] = entriesN(4, 1, "rewritten")[0]
	forked, err := translog.Update(nil, other, h.skey)
	if err != nil {
		t.Fatal(err)
	}
	h.set(node.LogDir+"/checkpoint", forked[translog.CheckpointFile])
	if l := r.read(t); !l.Unchanged || r.pin().Alarm == nil || r.pin().Alarm.Kind != logpin.AlarmFork {
		t.Fatalf("older, forked: %+v, alarm %+v", l, r.pin().Alarm)
	}
}

func TestRepinIsTheWayPastAnAlarm(t *testing.T) {
	h := newPeerHost(t)
	r, all := pinned(t, h)
	origin, _ := translog.Origin(h.base())
	skey, vkey, err := translog.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	h.set(node.IdentityFile, []byte("log_key: "+vkey+"\n"))
	all = append(all, entriesN(301, 1, "x")...)
	h.publish(t, all, skey)
	r.read(t)
	if r.pin().Alarm == nil {
		t.Fatal("no alarm")
	}
	before := r.src.Pins.Repin(r.peer.URL, testNow)
	if before.Alarm.Kind != logpin.AlarmKeyChange || !r.pin().Repin || logpin.State(r.pin()) == logpin.State(before) {
		t.Fatalf("repin: before %+v, after %+v", before, r.pin())
	}
	l := r.read(t)
	p := r.pin()
	if p.Key != vkey || p.Alarm != nil || len(p.Resolved) != 1 || p.Resolved[0].Kind != logpin.AlarmKeyChange || len(seqsOf(l)) != 301 {
		t.Fatalf("after repin: pin %+v, %d entries", p, len(seqsOf(l)))
	}
}

func TestPinsSaveOnlyWhatChanged(t *testing.T) {
	h := newPeerHost(t)
	r, _ := pinned(t, h)
	if changed, err := r.src.Pins.Save(); err != nil || !changed {
		t.Fatalf("first save: %v %v", changed, err)
	}
	r.read(t) // 304
	if changed, err := r.src.Pins.Save(); err != nil || changed {
		t.Fatalf("idle save: %v %v", changed, err)
	}
	back, err := logpin.Load(filepath.Join(r.dir, node.LogPinsFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Get(r.peer.URL); got == nil || got.Key != h.vkey || got.LastSeq != 300 {
		t.Fatalf("loaded %+v", got)
	}
}

// TestCursorBehindThePinReadsTheLogAgain: a poll whose result was lost
// (interrupted, its cursor not saved) must not leave the accepted
// entries unread.
func TestCursorBehindThePinReadsTheLogAgain(t *testing.T) {
	h := newPeerHost(t)
	r, _ := pinned(t, h)
	r.cur.LastSeenSeq = 0
	if l := r.read(t); len(seqsOf(l)) != 300 || l.Unchanged {
		t.Fatalf("cursor behind: %d entries", len(seqsOf(l)))
	}
	if l := r.read(t); !l.Unchanged {
		t.Fatalf("cursor caught up: %+v", l)
	}
}

// TestRepinKeepsItsEvidenceWhenThePeerNoLongerPublishesALog: a re-pinned
// peer without a log is read from MANIFEST.md, and the pin keeps the
// resolved alarm when a log appears later.
func TestRepinKeepsItsEvidenceWhenThePeerNoLongerPublishesALog(t *testing.T) {
	h := newPeerHost(t)
	r, _ := pinned(t, h)
	h.publish(t, nil, h.skey)
	h.set(node.LogDir+"/checkpoint", nil)
	r.read(t)
	r.src.Pins.Repin(r.peer.URL, testNow)
	if l := r.read(t); !slices.Equal(seqsOf(l), []manifest.Seq{1}) || r.man.reads != 2 {
		t.Fatalf("re-pinned without a log: %v, %d manifest reads", seqsOf(l), r.man.reads)
	}
	h.publish(t, entriesN(1, 2, "y"), h.skey)
	r.cur = state.Cursor{}
	if l := r.read(t); len(seqsOf(l)) != 2 || r.pin().Key != h.vkey || len(r.pin().Resolved) != 1 || r.pin().Resolved[0].Kind != logpin.AlarmLogGone {
		t.Fatalf("log back: %v, pin %+v", seqsOf(l), r.pin())
	}
}

// TestAPeerServingAnotherOriginsLogIsLogged: a hostile peer publishes,
// as its own, a log whose key is named for another agent's origin (a copy
// of that agent's log, which verifies under its key). A C2SP key's name is
// its log's origin, and a node's origin is its URL's, so the first contact
// says so in a line naming both. The log is pinned all the same: the
// conformance cases serve a log named for the URL the agent's MANIFEST.md
// declares, elsewhere (docs/decisions.md, "A peer's log key named for
// another origin"). A key named for the URL the peer is served from, or
// for the one its manifest declares, in any spelling, is its own. On
// 0825e87e nothing was said.
func TestAPeerServingAnotherOriginsLogIsLogged(t *testing.T) {
	h := newPeerHost(t)
	skey, vkey, err := translog.GenerateKey("victim.example/traces")
	if err != nil {
		t.Fatal(err)
	}
	h.set(node.IdentityFile, []byte(translog.IdentityKey+": "+vkey+"\n"))
	h.publish(t, entriesN(1, 3, "x"), skey)
	r := newReader(t, h)
	if l := r.read(t); len(seqsOf(l)) != 3 || r.pin() == nil || r.pin().Key != vkey {
		t.Fatalf("another origin's log: seqs %v, pin %+v; want it read and pinned", seqsOf(l), r.pin())
	}
	want := `its log key may sign another agent's log, pinned all the same: the key is named "victim.example/traces", not 127.0.0.1:`
	if got := strings.Join(r.logs, "\n"); !strings.Contains(got, want) {
		t.Errorf("no line says the key names another origin:\n%s", got)
	}

	own := newPeerHost(t)
	own.publish(t, entriesN(1, 3, "x"), own.skey)
	r = newReader(t, own)
	if r.read(t); strings.Contains(strings.Join(r.logs, "\n"), "another agent's log") {
		t.Errorf("a key named for the peer's own URL is said to be another's:\n%s", strings.Join(r.logs, "\n"))
	}
	for _, c := range []struct{ name, url, declared string }{
		{"the served URL in capitals", "http://LOCALHOST.:80/A/", ""},
		{"the URL its manifest declares", "http://127.0.0.1:1/mirror/", "https://Victim.example:443/traces/"},
	} {
		named := "localhost/A"
		if c.declared != "" {
			named = "victim.example/traces"
		}
		if err := keyNamesOrigin(named+"+00000000+AQ==", c.url, c.declared); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
