package site

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// TestAVotesTitleLinksOnlyWhereItsTraceWasRead: a peer publishes
// validations naming a known trace's hash (a peer's trace the ledger
// verified, and one of ours) with a trace_url of its own host. The site
// shows such a vote with the title the ledger or our own files give for
// the hash; on 14f1df39 that title linked to the URL the vote claimed, so
// the peer's page showed another agent's title, or ours, leading to a
// page of its choosing. A title the node knows links only to where the
// node read the trace.
func TestAVotesTitleLinksOnlyWhereItsTraceWasRead(t *testing.T) {
	const evil = "https://evil.example/phish"
	dir := filepath.Join(t.TempDir(), "node")
	if err := os.CopyFS(dir, os.DirFS("testdata/node")); err != nil {
		t.Fatal(err)
	}
	n := loadFixture(t, dir)
	p := filepath.Join(dir, node.LedgerFile)
	l, err := ledger.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var peers []manifest.Hash
	for _, lt := range l.SortedTraces() {
		if lt.Verified && lt.Title != "" && lt.URL != "" {
			peers = append(peers, lt.Hash)
		}
	}
	if len(peers) == 0 || len(n.Traces) == 0 {
		t.Fatalf("setup: %d verified peer traces with a title, %d of ours", len(peers), len(n.Traces))
	}
	for i, h := range []manifest.Hash{peers[0], n.Traces[0].Hash} {
		v := ledger.Validation{Validator: "mallory", ValidatorURL: "https://mallory.example/", TraceHash: h, TraceURL: evil,
			SourceHash: manifest.HashBytes([]byte{byte(i)}), Result: "pass", HasScores: true,
			Scores: [6]int{4, 3, 3, 3, 3, 3}, Total: 19}
		l.AddValidation(&v)
	}
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Build(context.Background(), Options{Dir: dir, Out: out, Now: fixtureNow}); err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if i := strings.Index(string(data), evil); i >= 0 {
			t.Errorf("%s links the URL a vote claimed: …%s…", path, data[i:min(len(data), i+200)])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
