package site

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/publish"
)

// TestBuildPublishesTheArchive archives the fixture's MANIFEST.md into
// pages of 2 rows, builds the site and serves it: every archive page
// comes back with the hash MANIFEST.md links, and every row, archived or
// not, with its file's hash.
func TestBuildPublishesTheArchive(t *testing.T) {
	dir := copyNode(t)
	s, err := node.Open(dir, node.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := s.Manifest
	if _, err := publish.Publish(publish.Options{Dir: dir, Agent: m.Agent, URL: m.URL, Now: m.Updated, Window: 2, Chunk: 2}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Build(context.Background(), Options{Dir: dir, Out: out, Now: fixtureNow}); err != nil {
		t.Fatalf("build: %v", err)
	}
	if s, err = node.Open(dir, node.Options{}); err != nil || len(s.Manifest.Archives) == 0 {
		t.Fatalf("open: %v, %d archive pages", err, len(s.Manifest.Archives))
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer srv.Close()
	for _, a := range s.Manifest.Archives {
		if got := manifest.HashBytes(get(t, srv.URL+"/"+a.File)); got != a.Hash {
			t.Errorf("served %s hashes to %s, MANIFEST.md links %s", a.File, got, a.Hash)
		}
	}
	for _, e := range s.Rows() {
		if got := manifest.HashBytes(get(t, srv.URL+"/"+e.File)); got != e.Hash {
			t.Errorf("served %s hashes to %s, its row says %s", e.File, got, e.Hash)
		}
	}
}
