package publish

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// copyAgent copies one real agent's MANIFEST.md (when withManifest) and
// traces into a temporary node. Corpus files are never copied into the repo.
func copyAgent(t *testing.T, src string, withManifest bool) string {
	t.Helper()
	dir := t.TempDir()
	names, err := filepath.Glob(filepath.Join(src, "traces", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if withManifest {
		names = append(names, filepath.Join(src, node.ManifestFile))
	}
	for _, n := range names {
		rel, _ := filepath.Rel(src, n)
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, filepath.ToSlash(rel), string(b))
	}
	return dir
}

func corpusAgents(t *testing.T) []string {
	agents, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "agents-hosted", "*"))
	if err != nil || len(agents) == 0 {
		t.Fatalf("no agents in the corpus (err %v)", err)
	}
	return agents
}

// TestPublishKeepsRealManifestsRegistry takes over each real agent's
// MANIFEST: every published file verifies, no row is renumbered, nothing is
// published twice, and the declared sequence is kept (noobagent's 254).
func TestPublishKeepsRealManifestsRegistry(t *testing.T) {
	for _, src := range corpusAgents(t) {
		t.Run(filepath.Base(src), func(t *testing.T) {
			dir := copyAgent(t, src, true)
			before, beforeRows := published(t, dir)
			res := mustPublish(t, Options{Dir: dir, Agent: filepath.Base(src), URL: "https://example.org/", Now: t0})
			if len(res.NewFiles) != 0 {
				t.Errorf("published %d files that were already listed", len(res.NewFiles))
			}
			after, afterRows := published(t, dir)
			if after.Sequence != max(before.Sequence, before.MaxSeq()) {
				t.Errorf("sequence %d, was %d", after.Sequence, before.Sequence)
			}
			for f, e := range beforeRows {
				if a := afterRows[f]; a.Seq != e.Seq || a.Hash != e.Hash {
					t.Errorf("%s: seq %d %s became %d %s", f, e.Seq, e.Hash, a.Seq, a.Hash)
				}
			}
			if res = mustPublish(t, Options{Dir: dir, Agent: filepath.Base(src), URL: "https://example.org/", Now: t1}); res.Changed {
				t.Error("a second run rewrote MANIFEST.md")
			}
		})
	}
}

// TestPublishRealTracesFromScratch publishes each real agent's traces on a
// node with no MANIFEST: one seq per file, 1..n, and a stable rerun.
func TestPublishRealTracesFromScratch(t *testing.T) {
	for _, src := range corpusAgents(t) {
		t.Run(filepath.Base(src), func(t *testing.T) {
			dir := copyAgent(t, src, false)
			snap, err := node.Open(dir, node.Options{})
			if err != nil {
				t.Fatal(err)
			}
			files, unpublishable := snap.Files(""), snap.Held()
			res := mustPublish(t, opts(dir, t0))
			if len(res.NewFiles)+len(res.Held) != len(files)+len(unpublishable) {
				t.Fatalf("published %d and held %d of %d files", len(res.NewFiles), len(res.Held), len(files)+len(unpublishable))
			}
			for i, e := range res.NewFiles {
				if e.Seq != manifest.Seq(i+1) || e.Type == "" {
					t.Errorf("row %d: seq %d type %q", i, e.Seq, e.Type)
				}
			}
			if res := mustPublish(t, opts(dir, t1)); res.Changed {
				t.Error("a second run rewrote MANIFEST.md")
			}
		})
	}
}

// TestPublishCatchesTamperedRealTrace edits one byte of a real published
// trace: publication stops and names it.
func TestPublishCatchesTamperedRealTrace(t *testing.T) {
	src := filepath.Join(corpustest.Dir(t), "agents-hosted", "czero")
	dir := copyAgent(t, src, true)
	p := filepath.Join(dir, "traces", "005-trace.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Skipf("corpus layout changed: %v", err)
	}
	b[len(b)/2] ^= 1
	writeFile(t, dir, "traces/005-trace.md", string(b))
	_, err = Publish(opts(dir, t0))
	var ie *ImmutableError
	if !errors.As(err, &ie) || len(ie.Files) != 1 || ie.Files[0].File != "traces/005-trace.md" {
		t.Errorf("err = %v, want an ImmutableError naming traces/005-trace.md", err)
	}
}
