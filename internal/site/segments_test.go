package site

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestSiteOfASealedLedgerIsTheSame: the site reads the ledger's sealed
// records from its shard segments whole (titles and citations
// included), so the fixture node with every record sealed builds the
// same pages, byte for byte.
func TestSiteOfASealedLedgerIsTheSame(t *testing.T) {
	want, _ := buildFixture(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/node")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.FromSlash(node.LedgerFile))
	l, err := ledger.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Compact(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	segs, err := statefile.ListSegments(p)
	if err != nil || len(segs) == 0 || !strings.HasPrefix(segs[0].Rel, "shard-") {
		t.Fatalf("segments %v (%v): want the ledger sealed into shard segments", segs, err)
	}
	got := buildDir(t, dir)
	wantFiles, gotFiles := siteFiles(t, want), siteFiles(t, got)
	if strings.Join(wantFiles, "\n") != strings.Join(gotFiles, "\n") {
		t.Fatalf("built %v, want %v", gotFiles, wantFiles)
	}
	for _, f := range wantFiles {
		a, _ := os.ReadFile(filepath.Join(want, f))
		b, _ := os.ReadFile(filepath.Join(got, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs:\n%s", f, firstDiff(string(a), string(b)))
		}
	}
}
