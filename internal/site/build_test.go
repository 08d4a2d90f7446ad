package site

import (
	"bytes"
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// TestServedFilesHashAsManifestLists serves a built site and checks that
// every file MANIFEST.md lists comes back with exactly the listed hash.
func TestServedFilesHashAsManifestLists(t *testing.T) {
	out, _ := buildFixture(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer srv.Close()
	data, err := os.ReadFile(filepath.Join(out, "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := manifest.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Entries) == 0 {
		t.Fatal("fixture manifest lists no files")
	}
	for _, e := range m.Entries {
		t.Run(e.File, func(t *testing.T) {
			if got := manifest.HashBytes(get(t, srv.URL+"/"+e.File)); got != e.Hash {
				t.Errorf("served %s hashes to %s, MANIFEST says %s", e.File, got, e.Hash)
			}
		})
	}
}

// TestBuildCopiesPublishedFilesByteForByte covers the files MANIFEST does
// not list (IDENTITY.md, AGENTS.md, disputes, MANIFEST.md itself).
func TestBuildCopiesPublishedFilesByteForByte(t *testing.T) {
	out, _ := buildFixture(t)
	for _, f := range []string{"MANIFEST.md", "IDENTITY.md", "AGENTS.md", "disputes/dispute-0a1b2c3d4e5f.md", "traces/003-hostile-input.md"} {
		t.Run(f, func(t *testing.T) {
			want, _ := os.ReadFile(filepath.Join("testdata/node", f))
			got, err := os.ReadFile(filepath.Join(out, f))
			if err != nil || string(got) != string(want) {
				t.Errorf("%s not copied byte for byte (err %v)", f, err)
			}
		})
	}
}

func TestUnchangedRebuildRewritesNothing(t *testing.T) {
	out, first := buildFixture(t)
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range siteFiles(t, out) {
		os.Chtimes(filepath.Join(out, f), old, old)
	}
	st, err := Build(context.Background(), Options{Dir: "testdata/node", Out: out, Now: fixtureNow})
	if err != nil {
		t.Fatal(err)
	}
	if st.Written != 0 || st.Removed != 0 || st.Unchanged != first.Files {
		t.Errorf("rebuild: %+v, want nothing written of %d", st, first.Files)
	}
	for _, f := range siteFiles(t, out) {
		fi, _ := os.Stat(filepath.Join(out, f))
		if !fi.ModTime().Equal(old) {
			t.Errorf("%s was rewritten (mtime %v)", f, fi.ModTime())
		}
	}
}

func TestRebuildRemovesPagesOfDeletedTraces(t *testing.T) {
	dir := copyNode(t)
	out := filepath.Join(t.TempDir(), "site")
	ctx := context.Background()
	if _, err := Build(ctx, Options{Dir: dir, Out: out, Now: fixtureNow}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "traces", "003-hostile-input.md"))
	st, err := Build(ctx, Options{Dir: dir, Out: out, Now: fixtureNow})
	if err != nil {
		t.Fatal(err)
	}
	if st.Removed != 2 {
		t.Errorf("removed %d files, want the trace and its page", st.Removed)
	}
	for _, f := range []string{"traces/003-hostile-input.md", "traces/003-hostile-input.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("%s still in the site", f)
		}
	}
}

func TestBuildRefusesToWriteIntoAForeignDirectory(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(dir string)
		wantErr bool
	}{
		{"absent directory", func(dir string) { os.Remove(dir) }, false},
		{"empty directory", func(string) {}, false},
		{"someone's files", func(dir string) { os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("x"), 0o644) }, true},
		{"an earlier site", func(dir string) { os.WriteFile(filepath.Join(dir, markerFile), nil, 0o644) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			tt.prepare(out)
			_, err := Build(context.Background(), Options{Dir: "testdata/node", Out: out, Now: fixtureNow})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				if _, err := os.Stat(filepath.Join(out, "thesis.tex")); err != nil {
					t.Error("the foreign file was touched")
				}
			}
		})
	}
}

func TestBuildOfAnEmptyNodeGivesAWorkingSite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	st, err := Build(context.Background(), Options{Dir: t.TempDir(), Out: out, Now: fixtureNow})
	if err != nil {
		t.Fatal(err)
	}
	if st.Traces != 0 {
		t.Errorf("traces = %d", st.Traces)
	}
	page, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if !strings.Contains(string(page), "No traces seen yet") {
		t.Error("home page of an empty node does not say it has no traces")
	}
	if broken := brokenLinks(t, out); len(broken) > 0 {
		t.Errorf("a node without MANIFEST, AGENTS or IDENTITY links to them: %v", broken)
	}
}

// TestEveryInternalLinkResolves follows every relative href and src of
// every page to a file of the site.
func TestEveryInternalLinkResolves(t *testing.T) {
	out, _ := buildFixture(t)
	broken := brokenLinks(t, out)
	for _, b := range broken {
		t.Error(b)
	}
}

func copyNode(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := os.CopyFS(dir, os.DirFS("testdata/node"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32*1024)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	return []byte(b.String())
}

// TestBuildRestoresGCSettings checks that Build relaxes the collector only
// while it runs: GOGC raised to buildGCPercent, from the load on, unless
// it asks for more or for none, the memory limit lowered to the floor unless GOMEMLIMIT asks
// for less, and both put back after the build.
func TestBuildRestoresGCSettings(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	currentPercent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	currentLimit := func() int64 { return debug.SetMemoryLimit(-1) }
	for _, c := range []struct {
		percent, during int
		limit, loading  int64
	}{
		{100, buildGCPercent, math.MaxInt64, quietMemoryFloor},
		{50, buildGCPercent, 1 << 40, quietMemoryFloor},
		{1000, 1000, 64 << 20, 64 << 20},
		{-1, -1, math.MaxInt64, quietMemoryFloor},
	} {
		debug.SetGCPercent(c.percent)
		debug.SetMemoryLimit(c.limit)
		gc := limitGC()
		if got := currentLimit(); got != c.loading {
			t.Errorf("GOGC %d, limit %d: limit %d while loading, want %d", c.percent, c.limit, got, c.loading)
		}
		if got := currentPercent(); got != c.during {
			t.Errorf("GOGC %d: %d while loading, want %d", c.percent, got, c.during)
		}
		gc.relax()
		if got := currentPercent(); got != c.during {
			t.Errorf("GOGC %d: %d while writing, want %d", c.percent, got, c.during)
		}
		if got, want := currentLimit(), min(c.limit, max(quietMemoryFloor, 2*liveHeap())); got != want {
			t.Errorf("limit %d: %d while writing before rendering, want %d", c.limit, got, want)
		}
		gc.rendering()
		if got, want := currentLimit(), min(c.limit, max(buildMemoryFloor, 2*liveHeap())); got != want {
			t.Errorf("limit %d: %d while rendering, want %d", c.limit, got, want)
		}
		gc.restore()
		buildFixture(t)
		if after := currentPercent(); after != c.percent {
			t.Errorf("GOGC %d: %d after a build", c.percent, after)
		}
		if after := currentLimit(); after != c.limit {
			t.Errorf("limit %d: %d after a build", c.limit, after)
		}
	}
}

// TestParallelBuildEqualsSerialBuild: pages are rendered and written on
// several writers at once; the site they make is byte for byte the one a
// single writer makes, cold and over an earlier build.
func TestParallelBuildEqualsSerialBuild(t *testing.T) {
	build := func(w int, out string) map[string]string {
		t.Helper()
		defer func(old int) { writers = old }(writers)
		writers = w
		if _, err := Write(context.Background(), manyNode(perPage+7, "ada", "bob"), out); err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, f := range siteFiles(t, out) {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			files[f] = string(b)
		}
		return files
	}
	serial := build(1, filepath.Join(t.TempDir(), "serial"))
	parallelOut := filepath.Join(t.TempDir(), "parallel")
	for _, run := range []string{"cold", "over an earlier build"} {
		parallel := build(16, parallelOut)
		if len(parallel) != len(serial) {
			t.Errorf("%s: %d files in parallel, %d serially", run, len(parallel), len(serial))
		}
		for f, want := range serial {
			if parallel[f] != want {
				t.Errorf("%s: %s differs between a parallel and a serial build", run, f)
			}
		}
	}
}

// TestRebuildRestoresKeyedFilesDeletedFromTheSite deletes, between two
// builds of the same node, files whose keys are unchanged, and plants a
// leftover temporary file and a stale directory: the rebuild writes each
// deleted file again, byte for byte, and removes what is not the site's.
// The cache skips an output only when its file was there when the
// build began.
func TestRebuildRestoresKeyedFilesDeletedFromTheSite(t *testing.T) {
	out, _ := buildFixture(t)
	deleted := []string{"traces/002-citation-graph.html", "traces/002-citation-graph.md", "traces/index.html",
		"mesh/index.html", "mesh/a1a1a1a1a1a1a1a1.html", "feed.atom", "agents/ada.atom"}
	want := map[string][]byte{}
	for _, f := range deleted {
		p := filepath.Join(out, filepath.FromSlash(f))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("the fixture's site has no %s: %v", f, err)
		}
		want[f] = data
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	planted := []string{"traces/.002-citation-graph.html.tmp-1", "old/pages/1.html"}
	for _, f := range planted {
		p := filepath.Join(out, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("left over"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Build(context.Background(), Options{Dir: "testdata/node", Out: out, Now: fixtureNow})
	if err != nil {
		t.Fatal(err)
	}
	if st.Written != len(deleted) || st.Removed != len(planted) {
		t.Errorf("rebuild wrote %d and removed %d files, want %d and %d", st.Written, st.Removed, len(deleted), len(planted))
	}
	for _, f := range deleted {
		if got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(f))); err != nil || !bytes.Equal(got, want[f]) {
			t.Errorf("%s not written again as it was (err %v)", f, err)
		}
	}
	for _, f := range append(planted, "old") {
		if _, err := os.Lstat(filepath.Join(out, filepath.FromSlash(f))); err == nil {
			t.Errorf("%s is still in the site", f)
		}
	}
}
