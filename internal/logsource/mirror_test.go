package logsource

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// mirrored returns a reader that pinned h's log of 300 entries, its
// IDENTITY.md listing mirror m, and those entries.
func mirrored(t *testing.T, h, m *peerHost) (*reader, []translog.Entry) {
	t.Helper()
	h.set(node.IdentityFile, []byte("# IDENTITY\n\nname: a\n"+translog.IdentityKey+": "+h.vkey+"\n"+IdentityMirror+": "+m.base()+"\n"))
	r, all := pinned(t, h)
	if p := r.pin(); !slices.Equal(p.Mirrors, []string{m.base()}) {
		t.Fatalf("mirrors pinned %q", p.Mirrors)
	}
	return r, all
}

// TestOriginDownReadsTheLogFromAMirror: with the origin down, the log
// is read from the mirror its IDENTITY.md listed, verified as from the
// origin, its files to be fetched from the mirror too; the peer shows as
// read from a mirror until the origin answers.
func TestOriginDownReadsTheLogFromAMirror(t *testing.T) {
	h, m := newPeerHost(t), newPeerHost(t)
	r, all := mirrored(t, h, m)
	all = append(all, entriesN(301, 20, "x")...)
	h.publish(t, all, h.skey)
	m.mirror(h)
	h.setDown(true)
	l := r.read(t)
	p := r.pin()
	if !slices.Equal(seqsOf(l), seqRange(301, 320)) || l.Mirror != m.base() || p.Alarm != nil || !p.MirrorSince.Equal(testNow) {
		t.Fatalf("origin down: seqs %v, mirror %q, pin %+v", seqsOf(l), l.Mirror, p)
	}
	if got := logpin.State(p); !strings.HasPrefix(got, "log: 320 entries verified; origin down, read from a mirror since ") {
		t.Fatalf("state %q", got)
	}
	h.setDown(false)
	all = append(all, entriesN(321, 1, "x")...)
	h.publish(t, all, h.skey)
	if l := r.read(t); !slices.Equal(seqsOf(l), seqRange(321, 321)) || l.Mirror != "" || !r.pin().MirrorSince.IsZero() {
		t.Fatalf("origin back: seqs %v, mirror %q, since %v", seqsOf(l), l.Mirror, r.pin().MirrorSince)
	}
}

// TestMirrorServingAlteredBytesIsItsFaultNotThePeers: a mirror's altered
// bundle, or a checkpoint no key of the peer's signed, is refused with its
// evidence kept, but raises no alarm on the peer (the mirror holds none of
// its keys): the origin's copy is accepted once it answers.
func TestMirrorServingAlteredBytesIsItsFaultNotThePeers(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, m *peerHost)
		kind   string
	}{
		{"altered entry", func(t *testing.T, m *peerHost) {
			path := node.LogDir + "/tile/entries/001.p/64"
			m.set(path, []byte(strings.Replace(string(m.get(path)), "traces/t-0301.md", "traces/t-9999.md", 1)))
		}, logpin.AlarmAlteredEntry},
		{"checkpoint signed by another key", func(t *testing.T, m *peerHost) {
			other := newPeerHost(t)
			files, err := translog.Update(nil, entriesN(1, 320, "x"), other.skey)
			if err != nil {
				t.Fatal(err)
			}
			m.set(node.LogDir+"/"+translog.CheckpointFile, files[translog.CheckpointFile])
		}, logpin.AlarmKeyChange},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, m := newPeerHost(t), newPeerHost(t)
			r, all := mirrored(t, h, m)
			all = append(all, entriesN(301, 20, "x")...)
			h.publish(t, all, h.skey)
			m.mirror(h)
			tc.tamper(t, m)
			h.setDown(true)
			l, err := r.src.Read(t.Context(), r.peer, &r.cur)
			p := r.pin()
			if err == nil || l.Manifest != nil || p.Alarm != nil || p.MirrorFault == nil || p.MirrorFault.Kind != tc.kind || p.LastSeq != 300 {
				t.Fatalf("err %v, listing %+v, alarm %+v, fault %+v", err, l, p.Alarm, p.MirrorFault)
			}
			h.setDown(false)
			if l := r.read(t); !slices.Equal(seqsOf(l), seqRange(301, 320)) || r.pin().Alarm != nil {
				t.Fatalf("origin back: seqs %v, alarm %+v", seqsOf(l), r.pin().Alarm)
			}
		})
	}
}

// TestStaleMirrorIsStalenessNotRollback: a mirror serving a checkpoint
// older than the one accepted gives nothing new and no alarm, the pin
// unmoved; after a week of mirrors alone the node says so at every poll;
// an older checkpoint of another history the peer's key signed is a fork,
// from a mirror as from the origin.
func TestStaleMirrorIsStalenessNotRollback(t *testing.T) {
	h, m := newPeerHost(t), newPeerHost(t)
	r, all := mirrored(t, h, m)
	m.mirror(h) // the mirror stops at 300 entries
	all = append(all, entriesN(301, 20, "x")...)
	h.publish(t, all, h.skey)
	r.read(t)
	accepted := r.pin().Checkpoint
	h.setDown(true)
	for _, after := range []int{0, 7 * 24} {
		r.src.Now = testNow.Add(time.Duration(after) * time.Hour)
		r.logs = nil
		l := r.read(t)
		p := r.pin()
		if !l.Unchanged || p.Alarm != nil || p.Checkpoint != accepted || p.LastSeq != 320 || !p.MirrorSince.Equal(testNow) {
			t.Fatalf("+%dh: listing %+v, pin %+v", after, l, p)
		}
		if warned := slices.ContainsFunc(r.logs, func(s string) bool { return strings.Contains(s, "mirrors alone") }); warned != (after > 0) {
			t.Fatalf("+%dh: logs %q", after, r.logs)
		}
	}
	other := append(entriesN(1, 3, "rewritten"), all[3:310]...)
	forked, err := translog.Update(nil, other, h.skey)
	if err != nil {
		t.Fatal(err)
	}
	m.mirror(h) // with the tiles of the tree accepted, which prove the fork
	m.set(node.LogDir+"/"+translog.CheckpointFile, forked[translog.CheckpointFile])
	if r.read(t); r.pin().Alarm == nil || r.pin().Alarm.Kind != logpin.AlarmFork {
		t.Fatalf("forked, from a mirror: alarm %+v", r.pin().Alarm)
	}
}

// FuzzIdentityMirrors parses any IDENTITY.md for mirror lines: never a
// panic, at most maxMirrors canonical URLs, none twice nor the origin,
// and written back as mirror lines they parse to the same list.
func FuzzIdentityMirrors(f *testing.F) {
	f.Add([]byte("mirror: https://mirror.example/a/\nmirror: https://MIRROR.example:443/a\n"))
	f.Add([]byte("name: a\nmirror: http://127.0.0.1:1/a/\nmirror: ftp://x/\nmirror: https://o.example/a/\n"))
	f.Add([]byte("mirror: https://a/\nmirror: https://b/\nmirror: https://c/\nmirror: https://d/\nmirror: https://e/\n"))
	f.Fuzz(func(t *testing.T, identity []byte) {
		const origin = "https://o.example/a/"
		got := Mirrors(identity, origin)
		if len(got) > maxMirrors || slices.Contains(got, origin) {
			t.Fatalf("mirrors %q", got)
		}
		var b strings.Builder
		for i, u := range got {
			if slices.Index(got, u) != i {
				t.Fatalf("%q twice in %q", u, got)
			}
			b.WriteString(IdentityMirror + ": " + u + "\n")
		}
		if again := Mirrors([]byte(b.String()), origin); !slices.Equal(again, got) {
			t.Fatalf("round trip %q → %q", got, again)
		}
	})
}

// TestMirrorsListedLaterAreLearnedWithinADay: a pinned peer's IDENTITY.md
// is read again for its mirrors on a poll whose log grew, at most once a
// day; its log key there moves nothing.
func TestMirrorsListedLaterAreLearnedWithinADay(t *testing.T) {
	h, m := newPeerHost(t), newPeerHost(t)
	r, all := pinned(t, h)
	h.set(node.IdentityFile, []byte(translog.IdentityKey+": "+h.vkey+"\n"+IdentityMirror+": "+m.base()+"\n"))
	for i, tc := range []struct {
		after    time.Duration
		requests int
		mirrors  []string
	}{
		{time.Hour, 2, nil},                 // within the day of the first contact: checkpoint, bundle
		{probeEvery, 3, []string{m.base()}}, // a day later: IDENTITY.md too
		{probeEvery + time.Hour, 2, []string{m.base()}},
	} {
		all = append(all, entriesN(len(all)+1, 1, "x")...)
		h.publish(t, all, h.skey)
		r.src.Now = testNow.Add(tc.after)
		l := r.read(t)
		if l.Requests != tc.requests || !slices.Equal(r.pin().Mirrors, tc.mirrors) || r.pin().Key != h.vkey {
			t.Fatalf("poll %d: %d requests, mirrors %q", i, l.Requests, r.pin().Mirrors)
		}
	}
}
