package node_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/check"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestCheckReadsTheBaseOnceThroughItsSnapshot checks a pull request that
// copies our published validation under a second name. The base's
// MANIFEST.md, FOUNDERS.md, ledger and validation hold garbage except
// while node.Open reads them (each is put back just before the snapshot
// reads it, and spoiled again once it is open): the check still finds the
// trace in the ledger, the founder's standing and the duplicate in the
// base's validations, which it can only know from the snapshot.
func TestCheckReadsTheBaseOnceThroughItsSnapshot(t *testing.T) {
	base := newNode(t, servePeer(t))
	beat(t, base)
	published, err := filepath.Glob(filepath.Join(base, node.ValidationsDir, "*.md"))
	if err != nil || len(published) != 1 {
		t.Fatalf("validations after the heartbeat: %v, %v; want one", published, err)
	}
	data, err := os.ReadFile(published[0])
	if err != nil {
		t.Fatal(err)
	}
	original := node.ValidationsDir + "/" + filepath.Base(published[0])
	copied := node.ValidationsDir + "/val-000000000000.md"
	pr := t.TempDir()
	for _, f := range []string{original, copied} {
		writeFile(t, pr, f, data)
	}

	real := snapshotOf(t, base)
	spoil(t, base)
	reads := countReads(t, func(rel string) { real.putBack(t, rel) }, func(s *node.Snapshot) { spoil(t, s.Dir) })
	problems := check.Check(check.Options{Dir: pr, Base: base, Files: []string{copied}, Agent: "tester", URL: "http://127.0.0.1:1/tester/"})

	var duplicate bool
	for _, p := range problems {
		if p.File != copied {
			t.Errorf("problem outside the checked file (the base read again?): %v", p)
		}
		duplicate = duplicate || strings.Contains(p.Message, original+" also validates")
	}
	if !duplicate {
		t.Errorf("the copy is not reported as a duplicate of the base's %s: %v", original, problems)
	}
	for _, rel := range []string{node.ManifestFile, node.FoundersFile, node.LedgerFile, original} {
		if reads[rel] != 1 {
			t.Errorf("%s read %d times through the snapshot, want once", rel, reads[rel])
		}
	}
}

func writeFile(t *testing.T, dir, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// files holds the bytes of a node's files, to put back one at a time.
type files struct {
	dir  string
	data map[string][]byte // by slash path relative to dir
}

// snapshotOf keeps the bytes of every file spoil overwrites.
func snapshotOf(t *testing.T, dir string) *files {
	t.Helper()
	f := &files{dir: dir, data: map[string][]byte{}}
	for _, rel := range spoiled(t, dir) {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		f.data[rel] = data
	}
	return f
}

// putBack restores what the snapshot is about to read as rel: the file,
// or every file of a state directory (node.LedgerFile, node.CursorsFile).
func (f *files) putBack(t *testing.T, rel string) {
	t.Helper()
	for name, data := range f.data {
		if name == rel || strings.HasPrefix(name, statefile.Dir(rel)+"/") {
			writeFile(t, f.dir, name, data)
		}
	}
}
