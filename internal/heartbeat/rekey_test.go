package heartbeat

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

const rekeyOrigin = "127.0.0.1:1/tester"

// signedNode is a keyedNode with two traces published and signed; it
// returns the directory, the key, its verifier key and the checkpoint.
func signedNode(t *testing.T) (dir, skey, vkey string, cp translog.Checkpoint) {
	t.Helper()
	dir, skey = keyedNode(t)
	write(t, dir, "traces/a.md", "# A\n\n## Work\n\nOne.\n")
	write(t, dir, "traces/b.md", "# B\n\n## Work\n\nTwo.\n")
	if _, err := beatKeyed(t, dir, skey, testNow, 0); err != nil {
		t.Fatal(err)
	}
	vkey, err := translog.VerifierKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	return dir, skey, vkey, openCheckpoint(t, dir, vkey)
}

func openCheckpoint(t *testing.T, dir, vkey string) translog.Checkpoint {
	t.Helper()
	cp, err := translog.Open(readBytes(t, dir, "log/checkpoint"), vkey)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

func readBytes(t *testing.T, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func loadConfig(t *testing.T, dir string) *config.Config {
	t.Helper()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// checkConsistent proves, from the node's tiles, that its log at cp's
// size is pinned's tree grown.
func checkConsistent(t *testing.T, dir string, cp, pinned translog.Checkpoint) {
	t.Helper()
	files, err := node.ReadLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tree translog.Tree
	entries, err := translog.EntriesOf(files, cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := tree.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	proof, err := tlog.ProveTree(cp.Size, pinned.Size, &tree)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(proof, cp.Size, cp.Root, pinned.Size, pinned.Root); err != nil {
		t.Fatalf("the log at %d is not the pinned one at %d grown: %v", cp.Size, pinned.Size, err)
	}
}

// TestRotateHandsTheLogToTheNewKey follows a rotation as the owner runs it
// and as a peer that pinned the old key reads it: the statement is the
// log's next entry and MANIFEST.md's next row, the checkpoint at it is
// signed by both keys, IDENTITY.md names the new key, and the log goes on
// under the new key alone, consistent with what the peer pinned.
func TestRotateHandsTheLogToTheNewKey(t *testing.T) {
	dir, oldS, oldV, pinned := signedNode(t)
	newS, newV, err := translog.GenerateKey(rekeyOrigin)
	if err != nil {
		t.Fatal(err)
	}
	change, err := Rotate(dir, loadConfig(t, dir), oldS, newS, testNow.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if change.Size != 3 || change.File != "log/key/rotation-3" || change.Key != newV || change.Previous != oldV {
		t.Fatalf("change %+v", change)
	}
	if keys := translog.Keys(readBytes(t, dir, node.IdentityFile)); len(keys) != 1 || keys[0] != newV {
		t.Fatalf("IDENTITY.md publishes %v, want the new key", keys)
	}
	m, _, err := manifest.Parse(readBytes(t, dir, node.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	stmt := readBytes(t, dir, change.File)
	if row := m.Entries[0]; row.Seq != 3 || row.File != change.File || row.Type != node.TypeKey || row.Hash != manifest.HashBytes(stmt) {
		t.Fatalf("newest row %+v", row)
	}
	for _, vkey := range []string{oldV, newV} {
		if cp := openCheckpoint(t, dir, vkey); cp.Size != 3 {
			t.Fatalf("checkpoint under %s has size %d", vkey, cp.Size)
		}
	}
	files, err := node.ReadLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := translog.EntriesOf(files, 3)
	if err != nil {
		t.Fatal(err)
	}
	key, start, err := translog.VerifyRotationEntry(oldV, 2, entries[2], stmt, rekeyOrigin)
	if err != nil || key != newV || start != 3 {
		t.Fatalf("a peer holding the old key reads %s from %d: %v", key, start, err)
	}

	write(t, dir, "traces/c.md", "# C\n\n## Work\n\nThree.\n")
	if _, err := beatKeyed(t, dir, newS, testNow.Add(2*time.Hour), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := translog.Open(readBytes(t, dir, "log/checkpoint"), oldV); err == nil {
		t.Fatal("the old key still signs the log after the rotation")
	}
	cp, err := translog.OpenRotated(readBytes(t, dir, "log/checkpoint"), oldV, newV, start)
	if err != nil || cp.Size != 4 {
		t.Fatalf("checkpoint after the rotation: %+v, %v", cp, err)
	}
	checkConsistent(t, dir, cp, pinned)
	if string(readBytes(t, dir, change.File)) != string(stmt) {
		t.Fatal("the statement changed after the rotation")
	}
}

// TestRotateFinishesARunCutShort: a rotation that stopped after
// MANIFEST.md (IDENTITY.md and the log still the old ones) is finished by
// running it again, to the same files.
func TestRotateFinishesARunCutShort(t *testing.T) {
	dir, oldS, _, _ := signedNode(t)
	identity := readBytes(t, dir, node.IdentityFile)
	checkpoint := readBytes(t, dir, "log/checkpoint")
	newS, _, err := translog.GenerateKey(rekeyOrigin)
	if err != nil {
		t.Fatal(err)
	}
	first, err := Rotate(dir, loadConfig(t, dir), oldS, newS, testNow.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	manifestAfter := readBytes(t, dir, node.ManifestFile)
	logAfter := readBytes(t, dir, "log/checkpoint")
	write(t, dir, node.IdentityFile, string(identity))
	write(t, dir, "log/checkpoint", string(checkpoint))
	again, err := Rotate(dir, loadConfig(t, dir), oldS, newS, testNow.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if *again != *first {
		t.Fatalf("second run %+v, first %+v", again, first)
	}
	if string(readBytes(t, dir, node.ManifestFile)) != string(manifestAfter) || string(readBytes(t, dir, "log/checkpoint")) != string(logAfter) {
		t.Fatal("the second run wrote other files than the first")
	}
}

func TestRotateRefuses(t *testing.T) {
	newS, _, err := translog.GenerateKey(rekeyOrigin)
	if err != nil {
		t.Fatal(err)
	}
	otherS, _, err := translog.GenerateKey("other.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("a key IDENTITY.md does not publish", func(t *testing.T) {
		dir, _, _, _ := signedNode(t)
		_, err := Rotate(dir, loadConfig(t, dir), newS, newS, testNow)
		if _, ok := errors.AsType[*UnsignedError](err); !ok {
			t.Fatalf("Rotate = %v, want an *UnsignedError", err)
		}
	})
	t.Run("a new key for another origin", func(t *testing.T) {
		dir, oldS, _, _ := signedNode(t)
		if _, err := Rotate(dir, loadConfig(t, dir), oldS, otherS, testNow); err == nil || !strings.Contains(err.Error(), "not named for the origin") {
			t.Fatalf("Rotate = %v", err)
		}
	})
	t.Run("files waiting to be published", func(t *testing.T) {
		dir, oldS, _, _ := signedNode(t)
		before := readBytes(t, dir, node.ManifestFile)
		write(t, dir, "traces/c.md", "# C\n\n## Work\n\nThree.\n")
		_, err := Rotate(dir, loadConfig(t, dir), oldS, newS, testNow)
		if err == nil || !strings.Contains(err.Error(), "run a heartbeat first") {
			t.Fatalf("Rotate = %v", err)
		}
		if string(readBytes(t, dir, node.ManifestFile)) != string(before) {
			t.Fatal("MANIFEST.md written")
		}
		if _, err := os.Stat(filepath.Join(dir, "log", "key")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a statement written: %v", err)
		}
	})
}

// TestRestartStartsTheLogAgainUnderTheNewKey: with the old key lost, the
// same entries are signed by the new key; the old key verifies nothing
// new, the restart statement names the key it replaces, and the tree at
// the old size is the one peers pinned, so an operator can check that the
// history is unchanged before re-pinning.
func TestRestartStartsTheLogAgainUnderTheNewKey(t *testing.T) {
	dir, _, oldV, pinned := signedNode(t)
	newS, newV, err := translog.GenerateKey(rekeyOrigin)
	if err != nil {
		t.Fatal(err)
	}
	change, err := Restart(dir, loadConfig(t, dir), newS, testNow.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if change.File != "log/key/restart-3" || change.Previous != oldV || change.Key != newV {
		t.Fatalf("change %+v", change)
	}
	if _, err := translog.Open(readBytes(t, dir, "log/checkpoint"), oldV); err == nil {
		t.Fatal("the restarted log verifies with the lost key")
	}
	cp := openCheckpoint(t, dir, newV)
	if cp.Size != 3 {
		t.Fatalf("size %d", cp.Size)
	}
	k, err := translog.VerifyRestart(readBytes(t, dir, change.File), rekeyOrigin)
	if err != nil || k != change.KeyStatement {
		t.Fatalf("VerifyRestart = %+v, %v", k, err)
	}
	checkConsistent(t, dir, cp, pinned)
	if keys := translog.Keys(readBytes(t, dir, node.IdentityFile)); len(keys) != 1 || keys[0] != newV {
		t.Fatalf("IDENTITY.md publishes %v", keys)
	}
	if _, err := Sign(dir, loadConfig(t, dir).URL, newS); err != nil {
		t.Fatalf("sign after the restart: %v", err)
	}
}
