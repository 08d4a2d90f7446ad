package node_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/site"
)

// TestSiteBuildReadsEachNodeFileOnce builds the site of a node that ran a
// heartbeat, counting the node files its snapshot reads and spoiling them
// on disk as soon as it is open: the site still publishes MANIFEST.md,
// FOUNDERS.md, AGENTS.md and our files as they were, so it read none of
// them again.
func TestSiteBuildReadsEachNodeFileOnce(t *testing.T) {
	dir := newNode(t, servePeer(t))
	beat(t, dir)
	want := map[string][]byte{}
	for _, rel := range append(spoiled(t, dir), node.AgentsFile) {
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); err == nil {
			want[rel] = data
		}
	}
	reads := countReads(t, nil, func(s *node.Snapshot) {
		spoil(t, s.Dir)
		writeFile(t, s.Dir, node.AgentsFile, []byte("{garbage"))
	})
	out := filepath.Join(t.TempDir(), "site")
	if _, err := site.Build(context.Background(), site.Options{Dir: dir, Out: out, Now: now}); err != nil {
		t.Fatalf("site built from spoiled files: %v", err)
	}
	for _, rel := range []string{node.ManifestFile, node.FoundersFile, node.AgentsFile, "traces/first.md"} {
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, want[rel]) {
			t.Errorf("site's %s is not the file as the snapshot read it (err %v): %q", rel, err, got)
		}
		if reads[rel] != 1 {
			t.Errorf("%s read %d times through the snapshot, want once", rel, reads[rel])
		}
	}
}
