package translog

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// The vectors' second and third keys, public here like vectorKey: the key
// a log changes to, and a key with no say in the log.
const (
	vectorKeyB = "PRIVATE+KEY+ada.example/mesh+126811d4+ASSPYWGk88E75eGElr+js9TTrTJ4qIygddP16M9c7lPC"
	vectorKeyC = "PRIVATE+KEY+ada.example/mesh+c369debb+AWK93b+iX+mMBLL/7lSxb9kL71xSMvnQfu+E+GY8/bbZ"
)

const vectorOrigin = "ada.example/mesh"

// keyVectors are the cases of conformance/logs/ that change a log's key,
// each made by its function (-update); a reader that pinned vectorKey at
// size 3 reads each (checkKeyVector).
var keyVectors = map[string]func(t *testing.T) keyVector{
	// The old key rotates to B at 4; the log grows to 5 under B.
	"rotation": func(t *testing.T) keyVector {
		k := KeyStatement{Kind: KindRotation, Origin: vectorOrigin, Previous: vkeyOf(t, vectorKey), Key: vkeyOf(t, vectorKeyB), Size: 4}
		return keyVector{stmt: k, signers: []string{vectorKey, vectorKeyB}, growTo: 5, expected: "accept\nkey " + k.Key + "\nsize 4\n"}
	},
	// A rotation to B that C, not the pinned key, signs.
	"rotation-wrong-key": func(t *testing.T) keyVector {
		k := KeyStatement{Kind: KindRotation, Origin: vectorOrigin, Previous: vkeyOf(t, vectorKeyC), Key: vkeyOf(t, vectorKeyB), Size: 4}
		return keyVector{stmt: k, signers: []string{vectorKeyC, vectorKeyB}, growTo: 5, expected: "refuse\n"}
	},
	// The old key is lost: B restarts the log at 4.
	"restart": func(t *testing.T) keyVector {
		k := KeyStatement{Kind: KindRestart, Origin: vectorOrigin, Previous: vkeyOf(t, vectorKey), Key: vkeyOf(t, vectorKeyB), Size: 4}
		return keyVector{stmt: k, signers: []string{vectorKeyB}, growTo: 4, expected: "re-pin\nkey " + k.Key + "\nsize 4\n"}
	},
}

// keyVector is a key change: its statement, who signs it, the size the
// log grows to under the new key, and what a reader must conclude.
type keyVector struct {
	stmt     KeyStatement
	signers  []string
	growTo   int
	expected string
}

func vkeyOf(t *testing.T, skey string) string {
	t.Helper()
	v, err := VerifierKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// vectorRow is row seq of a key vector's MANIFEST.md: a trace.
func vectorRow(seq int) manifest.Entry {
	body := fmt.Sprintf("trace %d\n", seq)
	return manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes([]byte(body)), File: fmt.Sprintf("traces/%04d.md", seq),
		Type: "knowledge", Status: manifest.StatusPending, Submitted: time.Date(2026, 3, 1, seq, 0, 0, 0, time.UTC)}
}

// writeKeyVector writes a key vector: pinned/ (the key and checkpoint a
// reader held at size 3), the log after the change with its statement,
// MANIFEST.md, IDENTITY.md and expected.
func writeKeyVector(t *testing.T, dir string, v keyVector) {
	rows := []manifest.Entry{vectorRow(1), vectorRow(2), vectorRow(3)}
	entries := func() []Entry {
		var out []Entry
		for _, r := range rows {
			out = append(out, EntryOf(r, ""))
		}
		return out
	}
	pinned, err := Update(nil, entries(), vectorKey)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := signNote(string(mustMarshal(t, v.stmt)), v.signers)
	if err != nil {
		t.Fatal(err)
	}
	file := path.Join("log", KeyStatementPath(v.stmt.Kind, v.stmt.Size))
	rows = append(rows, manifest.Entry{Seq: 4, Hash: manifest.HashBytes(msg), File: file, Type: KeyStatementType, Status: "published",
		Submitted: time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)})
	// The checkpoint at the statement: the old key's and the new one's at
	// a rotation; at a restart, or a rotation the old key did not sign,
	// the new key's alone over the same entries.
	var files map[string][]byte
	if v.stmt.Kind == KindRotation && v.signers[0] == vectorKey {
		files, err = Update(pinned, entries(), vectorKey, vectorKeyB)
	} else {
		files, err = Update(nil, entries(), vectorKeyB)
	}
	if err != nil {
		t.Fatal(err)
	}
	atStatement := files[CheckpointFile]
	for len(rows) < v.growTo {
		rows = append(rows, vectorRow(len(rows)+1))
	}
	if files, err = Update(files, entries(), vectorKeyB); err != nil {
		t.Fatal(err)
	}
	files[KeyStatementPath(v.stmt.Kind, v.stmt.Size)] = msg
	m := manifest.Manifest{Agent: "ada", URL: "https://ada.example/mesh/", Updated: rows[len(rows)-1].Submitted, Sequence: manifest.Seq(len(rows))}
	for i := len(rows) - 1; i >= 0; i-- {
		m.Entries = append(m.Entries, rows[i])
	}
	os.RemoveAll(dir)
	out := map[string][]byte{
		"MANIFEST.md":          m.Format(),
		"IDENTITY.md":          []byte("# IDENTITY\n\nname: ada\njoined: 2026-03-01\nrole: the agent of a log conformance vector\n" + IdentityKey + ": " + vkeyOf(t, vectorKeyB) + "\n"),
		"pinned/log_key":       []byte(vkeyOf(t, vectorKey) + "\n"),
		"pinned/checkpoint":    pinned[CheckpointFile],
		"statement/checkpoint": atStatement,
		"expected":             []byte(v.expected),
	}
	for name, data := range files {
		out["log/"+name] = data
	}
	for name, data := range out {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkKeyVector reads a key vector as a poller that pinned
// pinned/log_key at pinned/checkpoint does (docs/protocol.md §3.4,
// "Changing the key"), and compares its conclusion with expected.
func checkKeyVector(t *testing.T, dir string) {
	read := func(rel string) []byte {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	pinnedKey := strings.TrimSpace(string(read("pinned/log_key")))
	pinned, err := Open(read("pinned/checkpoint"), pinnedKey)
	if err != nil {
		t.Fatalf("pinned checkpoint: %v", err)
	}
	files := map[string][]byte{}
	err = fs.WalkDir(os.DirFS(filepath.Join(dir, "log")), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files[p] = read("log/" + p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := followKeyChange(t, pinnedKey, pinned, files, read)
	if want := string(read("expected")); got != want {
		t.Fatalf("a reader that pinned %s concludes %q, want %q", pinnedKey, got, want)
	}
	// The checkpoint at the statement carries the pinned key's signature
	// only when the pinned key handed the log on.
	_, err = Open(read("statement/checkpoint"), pinnedKey)
	if accepted := strings.HasPrefix(got, "accept"); (err == nil) != accepted {
		t.Fatalf("the checkpoint at the statement verifies with the pinned key: %v; the change is accepted: %v", err == nil, accepted)
	}
}

// followKeyChange is a poller's reading of a log whose checkpoint no
// longer verifies with the pinned key: the new tree must hold the pinned
// one, and among the new entries a key statement must hand the log on.
func followKeyChange(t *testing.T, pinnedKey string, pinned Checkpoint, files map[string][]byte, read func(string) []byte) string {
	if _, err := Open(files[CheckpointFile], pinnedKey); err == nil {
		t.Fatal("the checkpoint still verifies with the pinned key: no key change to follow")
	}
	text, err := unverifiedText(files[CheckpointFile])
	if err != nil {
		t.Fatal(err)
	}
	cp, err := ParseCheckpoint(text)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := EntriesOf(files, cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	var tree Tree
	for _, e := range entries {
		if err := tree.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if root, err := tree.Root(cp.Size); err != nil || root != cp.Root {
		return "refuse\n" // the tiles are not the checkpoint's tree
	}
	if root, err := tree.Root(pinned.Size); err != nil || root != pinned.Root {
		return "refuse\n" // the history a reader pinned was rewritten
	}
	for i := pinned.Size; i < cp.Size; i++ {
		e, err := ParseEntry(entries[i])
		if err != nil || e.Type != KeyStatementType {
			continue
		}
		stmt := read(e.File)
		if key, start, err := VerifyRotationEntry(pinnedKey, i, entries[i], stmt, pinned.Origin); err == nil {
			if _, err := OpenRotated(files[CheckpointFile], pinnedKey, key, start); err != nil {
				return "refuse\n"
			}
			return fmt.Sprintf("accept\nkey %s\nsize %d\n", key, start)
		}
		k, err := VerifyRestart(stmt, pinned.Origin)
		if err == nil && k.Previous == pinnedKey && k.Size == i+1 && manifest.HashBytes(stmt) == e.Hash {
			if _, err := Open(files[CheckpointFile], k.Key); err == nil {
				return fmt.Sprintf("re-pin\nkey %s\nsize %d\n", k.Key, k.Size)
			}
		}
	}
	return "refuse\n"
}
