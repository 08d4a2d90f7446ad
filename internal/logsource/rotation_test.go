package logsource

import (
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// logFiles are the files h serves under log/, by path under it.
func (h *peerHost) logFiles() map[string][]byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string][]byte{}
	for p, b := range h.files {
		if name, ok := strings.CutPrefix(p, node.LogDir+"/"); ok {
			out[name] = b
		}
	}
	return out
}

// grow publishes entries over the log h serves, as the publisher does:
// its key statements kept, the checkpoint signed by skey and cosigners.
func (h *peerHost) grow(t *testing.T, entries []translog.Entry, skey string, cosigners ...string) {
	t.Helper()
	files, err := translog.Update(h.logFiles(), entries, skey, cosigners...)
	if err != nil {
		t.Fatal(err)
	}
	for p, b := range files {
		h.set(node.LogDir+"/"+p, b)
	}
}

// newKey makes another key for h's log.
func newKey(t *testing.T, h *peerHost) (skey, vkey string) {
	t.Helper()
	origin, err := translog.Origin(h.base())
	if err != nil {
		t.Fatal(err)
	}
	skey, vkey, err = translog.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	return skey, vkey
}

// statementEntry is the log entry of key statement stmt at size.
func statementEntry(size int64, kind string, stmt []byte) translog.Entry {
	return translog.Entry{Seq: manifest.Seq(size), Hash: manifest.HashBytes(stmt), File: node.LogDir + "/" + translog.KeyStatementPath(kind, size),
		Type: translog.KeyStatementType, Submitted: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}
}

// rotate appends to all a rotation from (oldS, oldV) to a new key, signed
// by signers (oldS when none) and the new key, serves the statement and publishes the checkpoint at the
// rotation signed by oldS and the new key, as `meshnode sign
// --new-log-key` does. It returns the new key and the entries.
func rotate(t *testing.T, h *peerHost, all []translog.Entry, oldS, oldV string, signers ...string) (skey, vkey string, stmt []byte, out []translog.Entry) {
	t.Helper()
	skey, vkey = newKey(t, h)
	size := int64(len(all)) + 1
	k := translog.KeyStatement{Kind: translog.KindRotation, Origin: originOf(oldV), Previous: oldV, Key: vkey, Size: size}
	text, err := k.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if signers == nil {
		signers = []string{oldS}
	}
	stmt = signNote(t, text, append(slices.Clone(signers), skey)...)
	out = append(slices.Clone(all), statementEntry(size, translog.KindRotation, stmt))
	h.set(node.LogDir+"/"+translog.KeyStatementPath(translog.KindRotation, size), stmt)
	h.grow(t, out, oldS, skey)
	h.set(node.IdentityFile, []byte(translog.IdentityKey+": "+vkey+"\n"))
	return skey, vkey, stmt, out
}

// signNote signs text as a note with each distinct key of skeys.
func signNote(t *testing.T, text []byte, skeys ...string) []byte {
	t.Helper()
	slices.Sort(skeys)
	var signers []note.Signer
	for _, skey := range slices.Compact(skeys) {
		s, err := note.NewSigner(skey)
		if err != nil {
			t.Fatal(err)
		}
		signers = append(signers, s)
	}
	msg, err := note.Sign(&note.Note{Text: string(text)}, signers...)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func TestRotationBetweenPollsIsFollowed(t *testing.T) {
	h := newPeerHost(t)
	r, all := pinned(t, h)
	skey, vkey, stmt, all := rotate(t, h, all, h.skey, h.vkey)
	l := r.read(t)
	p := r.pin()
	if p.Alarm != nil || p.Key != vkey || !slices.Equal(seqsOf(l), []manifest.Seq{301}) {
		t.Fatalf("at the rotation: alarm %+v, key %s, seqs %v", p.Alarm, p.Key, seqsOf(l))
	}
	if len(p.Rotations) != 1 || p.Rotations[0] != (logpin.Rotation{Size: 301, Previous: h.vkey, Key: vkey, Statement: string(stmt)}) {
		t.Fatalf("rotations %+v", p.Rotations)
	}
	h.grow(t, append(all, entriesN(302, 2, "y")...), skey)
	l = r.read(t)
	if p := r.pin(); p.Alarm != nil || !slices.Equal(seqsOf(l), []manifest.Seq{302, 303}) || len(p.Rotations) != 1 {
		t.Fatalf("after the rotation: alarm %+v, seqs %v", p.Alarm, seqsOf(l))
	}
}

// TestRotationsMissedWhileAwayAreFollowed: the node was away while the
// peer rotated twice and grew under each key; one poll follows both.
func TestRotationsMissedWhileAwayAreFollowed(t *testing.T) {
	h := newPeerHost(t)
	r, all := pinned(t, h)
	before := h.get(node.LogDir + "/checkpoint")
	s2, v2, _, all := rotate(t, h, all, h.skey, h.vkey)
	all = append(all, entriesN(302, 3, "y")...)
	h.grow(t, all, s2)
	s3, v3, _, all := rotate(t, h, all, s2, v2)
	all = append(all, entriesN(306, 2, "z")...)
	h.grow(t, all, s3)
	l := r.read(t)
	p := r.pin()
	if p.Alarm != nil || p.Key != v3 || len(seqsOf(l)) != 7 || p.LastSeq != 307 {
		t.Fatalf("alarm %+v, key %s, seqs %v", p.Alarm, p.Key, seqsOf(l))
	}
	if len(p.Rotations) != 2 || p.Rotations[0].Key != v2 || p.Rotations[1].Previous != v2 || p.Rotations[1].Size != 305 {
		t.Fatalf("rotations %+v", p.Rotations)
	}
	// A cache still serving the checkpoint of before the rotations, which
	// only the first key signed, is staleness, not a key change.
	h.set(node.LogDir+"/checkpoint", before)
	if l := r.read(t); !l.Unchanged || r.pin().Alarm != nil || r.pin().Key != v3 {
		t.Fatalf("stale copy: %+v, pin %+v", l, r.pin())
	}
}

func TestKeyChangesThatAreNoRotationAreRefused(t *testing.T) {
	cases := []struct {
		name string
		// change publishes the change over all, h's pinned log; it
		// returns the statement refused ("" when none).
		change func(t *testing.T, h *peerHost, all []translog.Entry) []byte
	}{
		{"statement not signed by the pinned key", func(t *testing.T, h *peerHost, all []translog.Entry) []byte {
			thirdS, _ := newKey(t, h)
			// The statement names the pinned key as previous, but a
			// third key signed it; the log goes on under the new key.
			skey, _, stmt, all := rotate(t, h, all, h.skey, h.vkey, thirdS)
			h.grow(t, append(all, entriesN(302, 1, "y")...), skey)
			return stmt
		}},
		{"old key signs after the rotation", func(t *testing.T, h *peerHost, all []translog.Entry) []byte {
			_, _, stmt, all := rotate(t, h, all, h.skey, h.vkey)
			files, err := translog.Update(nil, append(all, entriesN(302, 1, "y")...), h.skey)
			if err != nil {
				t.Fatal(err)
			}
			for p, b := range files {
				h.set(node.LogDir+"/"+p, b)
			}
			return stmt
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newPeerHost(t)
			r, all := pinned(t, h)
			accepted := r.pin().Checkpoint
			stmt := tc.change(t, h, all)
			l := r.read(t)
			p := r.pin()
			if l.Manifest != nil || p.Alarm == nil || p.Alarm.Kind != logpin.AlarmKeyChange || p.Key != h.vkey || p.LastSeq != 300 {
				t.Fatalf("listing %+v, pin %+v", l, p)
			}
			a := p.Alarm
			if len(a.Checkpoints) != 2 || a.Checkpoints[0] != accepted || a.Checkpoints[1] != string(h.get(node.LogDir+"/checkpoint")) || a.Statement != string(stmt) {
				t.Fatalf("evidence %+v", a)
			}
		})
	}
}

// TestOldKeyAfterAFollowedRotationIsRefused: once the pin moved, a
// checkpoint the old key alone signs is a key change.
func TestOldKeyAfterAFollowedRotationIsRefused(t *testing.T) {
	h := newPeerHost(t)
	r, all := pinned(t, h)
	_, vkey, _, all := rotate(t, h, all, h.skey, h.vkey)
	r.read(t)
	files, err := translog.Update(nil, append(all, entriesN(302, 1, "y")...), h.skey)
	if err != nil {
		t.Fatal(err)
	}
	for p, b := range files {
		h.set(node.LogDir+"/"+p, b)
	}
	l := r.read(t)
	if p := r.pin(); l.Manifest != nil || p.Alarm == nil || p.Alarm.Kind != logpin.AlarmKeyChange || p.Key != vkey || len(p.Alarm.Checkpoints) != 2 {
		t.Fatalf("listing %+v, pin %+v", l, p)
	}
}

// TestRestartWaitsForRepinThenReads: a restart is shown, never followed,
// until the operator re-pins; then the log is read under the new key.
func TestRestartWaitsForRepinThenReads(t *testing.T) {
	h := newPeerHost(t)
	r, all := pinned(t, h)
	skey, vkey := newKey(t, h)
	k := translog.KeyStatement{Kind: translog.KindRestart, Origin: originOf(h.vkey), Previous: h.vkey, Key: vkey, Size: 301}
	stmt, err := translog.SignKeyStatement(k, skey)
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, statementEntry(301, translog.KindRestart, stmt))
	h.publish(t, all, skey)
	h.set(node.LogDir+"/"+translog.KeyStatementPath(translog.KindRestart, 301), stmt)
	h.set(node.IdentityFile, []byte(translog.IdentityKey+": "+vkey+"\n"))
	for range 2 {
		l := r.read(t)
		p := r.pin()
		if l.Manifest != nil || p.Alarm == nil || p.Alarm.Kind != logpin.AlarmRestart || p.Alarm.Key != vkey || p.Alarm.Size != 301 || p.Key != h.vkey || p.Alarm.Statement != string(stmt) || len(p.Alarm.Checkpoints) != 2 {
			t.Fatalf("listing %+v, pin %+v", l, p)
		}
		if s := logpin.State(p); !strings.Contains(s, "waiting for its operator") || !strings.Contains(s, vkey) || !strings.Contains(s, "301") {
			t.Fatalf("state %q", s)
		}
	}
	r.src.Pins.Repin(r.peer.URL, testNow)
	l := r.read(t)
	p := r.pin()
	if p.Alarm != nil || p.Key != vkey || len(seqsOf(l)) != 301 || len(p.Resolved) != 1 || p.Resolved[0].Kind != logpin.AlarmRestart {
		t.Fatalf("after repin: pin %+v, %d entries", p, len(seqsOf(l)))
	}
	h.grow(t, append(all, entriesN(302, 1, "y")...), skey)
	if l := r.read(t); r.pin().Alarm != nil || !slices.Equal(seqsOf(l), []manifest.Seq{302}) {
		t.Fatalf("after the restart: alarm %+v, seqs %v", r.pin().Alarm, seqsOf(l))
	}
}

// FuzzServedKeyStatement serves any bytes as the statement of a rotation
// the log holds: the read must never panic, and the pin moves to the new
// key only for the statement's own bytes.
func FuzzServedKeyStatement(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("meshnode log key rotation\norigin 127.0.0.1\n"))
	f.Add([]byte("meshnode log key restart\norigin a\nprevious a+00000000+AQ==\nkey a+00000001+AQ==\nsize 301\n\n— a AAAA\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		h := newPeerHost(t)
		r, all := pinned(t, h)
		skey, vkey, stmt, all := rotate(t, h, all, h.skey, h.vkey)
		h.grow(t, append(all, entriesN(302, 1, "y")...), skey)
		h.set(node.LogDir+"/"+translog.KeyStatementPath(translog.KindRotation, 301), body)
		r.read(t)
		p := r.pin()
		if moved := p.Key == vkey; moved != (string(body) == string(stmt)) || moved == (p.Alarm != nil) {
			t.Fatalf("served %q: pin %+v", body, p)
		}
	})
}

// TestRotatedLogTooLargeToReadAtOnceFailsThePoll: under a checkpoint the
// pinned key does not sign, the new entries are read whole to find the
// rotation before any is handed on; past maxEntriesRotated the poll
// fails and says so, no alarm, nothing accepted, and the peer is read
// once the cap allows.
func TestRotatedLogTooLargeToReadAtOnceFailsThePoll(t *testing.T) {
	defer func(n int64) { maxEntriesRotated = n }(maxEntriesRotated)
	h := newPeerHost(t)
	r, all := pinned(t, h)
	skey, vkey, _, all := rotate(t, h, all, h.skey, h.vkey)
	h.grow(t, append(all, entriesN(302, 50, "y")...), skey)
	maxEntriesRotated = 50
	l, err := r.src.Read(t.Context(), r.peer, &r.cur)
	if err == nil || !strings.Contains(err.Error(), "more than 50") || l.Manifest != nil || r.pin().Alarm != nil || r.pin().LastSeq != 300 {
		t.Fatalf("err %v, listing %+v, pin %+v", err, l, r.pin())
	}
	maxEntriesRotated = 51
	if l := r.read(t); len(seqsOf(l)) != 51 || r.pin().Key != vkey {
		t.Fatalf("within the cap: %d entries, key %s", len(seqsOf(l)), r.pin().Key)
	}
}
