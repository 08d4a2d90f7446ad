package translog

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/manifest"
)

// newTestKey is a second (third…) key pair for the test origin.
func newTestKey(t *testing.T, origin string) (string, string) {
	t.Helper()
	s, v, err := GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	return s, v
}

// statementEntry is the log entry of a key statement at seq.
func statementEntry(seq int, kind string, size int64, stmt []byte) Entry {
	return Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes(stmt), File: "log/" + KeyStatementPath(kind, size),
		Type: KeyStatementType, Submitted: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}
}

// rotated is a log of 3 entries under testSKey, rotated to a new key by
// entry 4, then grown to 6 entries under the new key.
type rotated struct {
	before, atRotation, after map[string][]byte
	stmt                      []byte
	newSKey, newVKey          string
}

func rotateTestLog(t *testing.T) rotated {
	t.Helper()
	r := rotated{}
	r.newSKey, r.newVKey = newTestKey(t, testOrigin)
	entries := entriesN(3)
	r.before = update(t, nil, entries)
	k := KeyStatement{Kind: KindRotation, Origin: testOrigin, Previous: testVKey, Key: r.newVKey, Size: 4}
	var err error
	if r.stmt, err = SignKeyStatement(k, testSKey, r.newSKey); err != nil {
		t.Fatal(err)
	}
	entries = append(entries, statementEntry(4, KindRotation, 4, r.stmt))
	if r.atRotation, err = Update(r.before, entries, testSKey, r.newSKey); err != nil {
		t.Fatal(err)
	}
	r.atRotation[KeyStatementPath(KindRotation, 4)] = r.stmt
	more := entriesN(6)[4:]
	if r.after, err = Update(r.atRotation, append(entries, more...), r.newSKey); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRotationRoundTrip follows a rotation as a reader that pinned the old
// key at size 3 does: the new checkpoint does not verify with the pinned
// key; the statement, entry 3 of the new tree, verifies with it and names
// the new key; the new checkpoint verifies under the rotation's schedule
// and is consistent with the pinned one.
func TestRotationRoundTrip(t *testing.T) {
	r := rotateTestLog(t)
	pinned, err := Open(r.before[CheckpointFile], testVKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(r.after[CheckpointFile], testVKey); err == nil {
		t.Fatal("the checkpoint after the rotation verifies with the old key alone")
	}
	entries, err := EntriesOf(r.after, 6)
	if err != nil {
		t.Fatal(err)
	}
	newKey, start, err := VerifyRotationEntry(testVKey, 3, entries[3], r.stmt, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	if newKey != r.newVKey || start != 4 {
		t.Fatalf("rotation to %s at %d, want %s at 4", newKey, start, r.newVKey)
	}
	cp, err := OpenRotated(r.after[CheckpointFile], testVKey, newKey, start)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Size != 6 {
		t.Fatalf("size %d", cp.Size)
	}
	tr := tlog.TileHashReader(tlog.Tree{N: cp.Size, Hash: cp.Root}, mapTiles(r.after))
	proof, err := tlog.ProveTree(cp.Size, pinned.Size, tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(proof, cp.Size, cp.Root, pinned.Size, pinned.Root); err != nil {
		t.Fatalf("the rotated log is not consistent with the pinned checkpoint: %v", err)
	}
	if got := KeyStatements(r.after); string(got["key/rotation-4"]) != string(r.stmt) {
		t.Fatalf("the statement is not kept among the log's files: %v", got)
	}
}

// TestRotationCheckpointIsSignedByBothKeys: the checkpoint at the rotation
// verifies with the old key (a reader that knows nothing of rotations
// still follows it) and with the new one, and stays as it is while the log
// does not grow.
func TestRotationCheckpointIsSignedByBothKeys(t *testing.T) {
	r := rotateTestLog(t)
	for _, vkey := range []string{testVKey, r.newVKey} {
		if _, err := Open(r.atRotation[CheckpointFile], vkey); err != nil {
			t.Errorf("with %s: %v", vkey, err)
		}
	}
	if _, err := OpenRotated(r.atRotation[CheckpointFile], testVKey, r.newVKey, 4); err != nil {
		t.Error(err)
	}
	entries, err := EntriesOf(r.atRotation, 4)
	if err != nil {
		t.Fatal(err)
	}
	var again []Entry
	for _, b := range entries {
		e, err := ParseEntry(b)
		if err != nil {
			t.Fatal(err)
		}
		again = append(again, e)
	}
	same, err := Update(r.atRotation, again, r.newSKey)
	if err != nil {
		t.Fatal(err)
	}
	if string(same[CheckpointFile]) != string(r.atRotation[CheckpointFile]) {
		t.Error("signing an unchanged log with the new key dropped the old key's signature")
	}
}

func TestRotationRefused(t *testing.T) {
	r := rotateTestLog(t)
	thirdS, thirdV := newTestKey(t, testOrigin)
	sign := func(k KeyStatement, skeys ...string) []byte {
		t.Helper()
		msg, err := SignKeyStatement(k, skeys...)
		if err != nil {
			t.Fatal(err)
		}
		return msg
	}
	otherS, otherV := newTestKey(t, "other.example/mesh")
	tests := []struct {
		name, want string
		stmt       []byte
		origin     string
	}{
		{"signed by a third key", "no verifiable signatures", sign(KeyStatement{Kind: KindRotation, Origin: testOrigin, Previous: thirdV, Key: r.newVKey, Size: 4}, thirdS, r.newSKey), testOrigin},
		{"for another origin", "not \"" + testOrigin + "\"", func() []byte {
			_, otherNewV := newTestKey(t, "other.example/mesh")
			other := KeyStatement{Kind: KindRotation, Origin: "other.example/mesh", Previous: otherV, Key: otherNewV, Size: 4}
			text, _ := other.Marshal()
			// Signed with the pinned key, whose name is testOrigin:
			// note signs any text.
			return signText(t, text, testSKey, otherS)
		}(), testOrigin},
		{"naming another previous key", "not the pinned key", signText(t, mustMarshal(t, KeyStatement{Kind: KindRotation, Origin: testOrigin, Previous: thirdV, Key: r.newVKey, Size: 4}), thirdS, r.newSKey, testSKey), testOrigin},
		{"not signed by the new key", "not signed by the new key", signText(t, mustMarshal(t, KeyStatement{Kind: KindRotation, Origin: testOrigin, Previous: testVKey, Key: thirdV, Size: 4}), testSKey), testOrigin},
		{"a restart, even one the pinned key signed", "not a rotation", signText(t, mustMarshal(t, KeyStatement{Kind: KindRestart, Origin: testOrigin, Previous: testVKey, Key: thirdV, Size: 4}), thirdS, testSKey), testOrigin},
		{"altered after signing", "invalid signature", []byte(strings.Replace(string(r.stmt), "size 4", "size 5", 1)), testOrigin},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := VerifyRotation(testVKey, tt.stmt, tt.origin)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("VerifyRotation = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// mustMarshal is k's text.
func mustMarshal(t *testing.T, k KeyStatement) []byte {
	t.Helper()
	text, err := k.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// signText signs text with skeys, whatever it says.
func signText(t *testing.T, text []byte, skeys ...string) []byte {
	t.Helper()
	msg, err := signNote(string(text), skeys)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// TestRotatedCheckpointSchedule: after a rotation at 4, a checkpoint is
// accepted only with the keys its size needs.
func TestRotatedCheckpointSchedule(t *testing.T) {
	r := rotateTestLog(t)
	cp := func(size int64, skeys ...string) []byte {
		t.Helper()
		msg, err := Sign(Checkpoint{Origin: testOrigin, Size: size}, skeys...)
		if err != nil {
			t.Fatal(err)
		}
		return msg
	}
	tests := []struct {
		name string
		msg  []byte
		ok   bool
	}{
		{"before, old key", cp(3, testSKey), true},
		{"before, new key only", cp(3, r.newSKey), false},
		{"at the rotation, both", cp(4, testSKey, r.newSKey), true},
		{"at the rotation, old key only", cp(4, testSKey), false},
		{"at the rotation, new key only", cp(4, r.newSKey), false},
		{"after, new key", cp(5, r.newSKey), true},
		{"after, old key only", cp(5, testSKey), false},
		{"after, both", cp(5, testSKey, r.newSKey), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := OpenRotated(tt.msg, testVKey, r.newVKey, 4)
			if (err == nil) != tt.ok {
				t.Fatalf("OpenRotated = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// TestRotationEntryRefused: the statement must be the entry its size
// says, logged with its hash and type.
func TestRotationEntryRefused(t *testing.T) {
	r := rotateTestLog(t)
	entries, err := EntriesOf(r.after, 6)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		index int64
		entry []byte
		stmt  []byte
		want  string
	}{
		{"at another index", 4, entries[3], r.stmt, "entry 4"},
		{"a trace entry", 3, entries[2], r.stmt, "hash"},
		{"another statement", 3, entries[3], append([]byte(nil), r.stmt[:len(r.stmt)-2]...), "hash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := VerifyRotationEntry(testVKey, tt.index, tt.entry, tt.stmt, testOrigin)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("VerifyRotationEntry = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestRestartStatement: a restart verifies with the new key it names and
// nothing else; it is never a rotation.
func TestRestartStatement(t *testing.T) {
	newS, newV := newTestKey(t, testOrigin)
	k := KeyStatement{Kind: KindRestart, Origin: testOrigin, Previous: testVKey, Key: newV, Size: 4}
	msg, err := SignKeyStatement(k, newS)
	if err != nil {
		t.Fatal(err)
	}
	got, err := VerifyRestart(msg, testOrigin)
	if err != nil || got != k {
		t.Fatalf("VerifyRestart = %+v, %v", got, err)
	}
	if _, _, err := VerifyRotation(testVKey, msg, testOrigin); err == nil {
		t.Fatal("a restart passed as a rotation")
	}
	if _, err := VerifyRestart(msg, "other.example/mesh"); err == nil {
		t.Fatal("a restart of another log accepted")
	}
	thirdS, _ := newTestKey(t, testOrigin)
	forged, err := signNote(string(mustMarshal(t, k)), []string{thirdS})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyRestart(forged, testOrigin); err == nil {
		t.Fatal("a restart not signed by the key it names accepted")
	}
	if _, err := VerifyRestart(append(msg, make([]byte, MaxKeyStatementBytes)...), testOrigin); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("an oversized restart statement: %v", err)
	}
	if _, err := SignKeyStatement(KeyStatement{Kind: KindRotation, Origin: testOrigin, Previous: testVKey, Key: newV, Size: 4}, newS); err == nil {
		t.Fatal("a rotation signed without the previous key")
	}
}

func TestParseKeyStatementRefusesOtherSpellings(t *testing.T) {
	_, newV := newTestKey(t, testOrigin)
	good := string(mustMarshal(t, KeyStatement{Kind: KindRotation, Origin: testOrigin, Previous: testVKey, Key: newV, Size: 4}))
	if _, err := ParseKeyStatement(good); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"size with a plus":      strings.Replace(good, "size 4", "size +4", 1),
		"size zero":             strings.Replace(good, "size 4", "size 0", 1),
		"no final newline":      strings.TrimSuffix(good, "\n"),
		"an extra line":         good + "note x\n",
		"another kind":          strings.Replace(good, "key rotation", "key rewrite", 1),
		"a key of another name": strings.Replace(good, "origin "+testOrigin, "origin x.example", 1),
		"the same key twice":    strings.Replace(good, newV, testVKey, 1),
		"a checkpoint":          string(Checkpoint{Origin: testOrigin, Size: 4}.Marshal()),
	} {
		if _, err := ParseKeyStatement(text); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}
