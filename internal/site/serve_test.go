package site

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPreviewServesRawMarkdownByteForByte(t *testing.T) {
	p := NewPreview(Options{Dir: "testdata/node", Out: filepath.Join(t.TempDir(), "site"), Now: fixtureNow})
	srv := httptest.NewServer(p)
	defer srv.Close()
	tests := []struct{ path, ctype string }{
		{"traces/001-hello-mesh.md", "text/markdown; charset=utf-8"},
		{"MANIFEST.md", "text/markdown; charset=utf-8"},
		{"index.html", "text/html; charset=utf-8"},
		{"feed.atom", "application/atom+xml; charset=utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, err := http.Get(srv.URL + "/" + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("Content-Type"); got != tt.ctype {
				t.Errorf("Content-Type = %q, want %q", got, tt.ctype)
			}
		})
	}
	want, _ := os.ReadFile("testdata/node/traces/001-hello-mesh.md")
	if got := get(t, srv.URL+"/traces/001-hello-mesh.md"); string(got) != string(want) {
		t.Error("served markdown differs from the source bytes")
	}
}

func TestPreviewRebuildsWhenASourceChanges(t *testing.T) {
	dir := copyNode(t)
	p := NewPreview(Options{Dir: dir, Out: filepath.Join(t.TempDir(), "site"), Now: fixtureNow})
	srv := httptest.NewServer(p)
	defer srv.Close()
	if strings.Contains(string(get(t, srv.URL+"/traces/index.html")), "Freshly written") {
		t.Fatal("fixture already has the new trace")
	}
	if built, _ := p.Refresh(context.Background()); built {
		t.Error("rebuilt with nothing changed")
	}
	os.WriteFile(filepath.Join(dir, "traces", "004-new.md"), []byte("# Freshly written\n"), 0o644)
	// A later mtime for sure, whatever the filesystem's resolution.
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, "traces"), later, later)
	if !strings.Contains(string(get(t, srv.URL+"/traces/index.html")), "Freshly written") {
		t.Error("the new trace is not in the preview after the next request")
	}
	if !strings.Contains(string(get(t, srv.URL+"/traces/004-new.html")), "Freshly written") {
		t.Error("the new trace has no page")
	}
}

// TestPreviewAnswersAMissingPageWithTheSites404 checks that the preview
// behaves as GitHub Pages: status 404 with the site's own 404.html, at
// any depth, and no listing of a directory without index.html.
func TestPreviewAnswersAMissingPageWithTheSites404(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	p := NewPreview(Options{Dir: "testdata/node", Out: out, Now: fixtureNow})
	srv := httptest.NewServer(p)
	defer srv.Close()
	for _, path := range []string{"/nope.html", "/traces/nope.html", "/a/b/c", "/validations/", "/.meshnode-site"} {
		t.Run(path, func(t *testing.T) {
			resp, err := http.Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want, _ := os.ReadFile(filepath.Join(out, "404.html"))
			if resp.StatusCode != http.StatusNotFound || string(body) != string(want) {
				t.Errorf("status %d, body %.60q; want 404 with the site's 404.html", resp.StatusCode, body)
			}
		})
	}
	for _, path := range []string{"/", "/traces/", "/agents/ada.html"} {
		if resp, err := http.Get(srv.URL + path); err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %v %v, want 200", path, resp.StatusCode, err)
		}
	}
}
