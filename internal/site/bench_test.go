package site

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// writeSyntheticNode writes a node of n traces of a few kilobytes each,
// with front matter, tables, code and citations, and a MANIFEST listing
// them (bench/site/gen writes the same shape for the Hugo comparison).
func writeSyntheticNode(tb testing.TB, dir string, n int) {
	tb.Helper()
	os.MkdirAll(filepath.Join(dir, "traces"), 0o755)
	m := &manifest.Manifest{Agent: "bench", URL: "https://bench.example.org/", Updated: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Sequence: manifest.Seq(n)}
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("traces/%05d-trace.md", i)
		body := syntheticTrace(i)
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			tb.Fatal(err)
		}
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(i), Hash: manifest.HashBytes(body), File: name, Type: "knowledge",
			Status: "pending", Submitted: m.Updated.Add(-time.Duration(n-i) * time.Hour)})
	}
	os.WriteFile(filepath.Join(dir, "MANIFEST.md"), m.Format(), 0o644)
	os.WriteFile(filepath.Join(dir, "IDENTITY.md"), []byte("# Identity\n- Name: bench\n"), 0o644)
}

func syntheticTrace(i int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: Trace number %d\ntype: knowledge\ncategory: pebble\ntags: [bench, synthetic]\n---\n\n# Trace number %d\n\n", i, i)
	b.WriteString("## Work\n\n")
	for p := range 4 {
		fmt.Fprintf(&b, "Paragraph %d of trace %d with **bold**, *emphasis*, `code` and a link to https://example.org/%d. ", p, i, i)
		b.WriteString(strings.Repeat("The mesh verifies every hash before it trusts a byte. ", 6) + "\n\n")
	}
	b.WriteString("| step | what | cost |\n|---|---|---|\n| 1 | fetch MANIFEST.md | one request |\n| 2 | fetch entries | one each |\n\n")
	fmt.Fprintf(&b, "```go\nfor _, e := range entries[%d:] {\n\tverify(e)\n}\n```\n\n## Connections\n\n", i)
	fmt.Fprintf(&b, "- bench/%d\n- ada/%d\n", max(1, i-1), i%50+1)
	return []byte(b.String())
}

// BenchmarkBuild10k builds a node of 10,000 traces from cold, then
// measures an unchanged rebuild (the common case: a heartbeat changed
// nothing), which must rewrite nothing.
func BenchmarkBuild10k(b *testing.B) {
	dir := b.TempDir()
	writeSyntheticNode(b, dir, 10000)
	out := filepath.Join(b.TempDir(), "site")
	ctx := context.Background()
	o := Options{Dir: dir, Out: out, Now: fixtureNow}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			// Deleting the last site is not part of a build.
			b.StopTimer()
			os.RemoveAll(out)
			b.StartTimer()
			if _, err := Build(ctx, o); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		if _, err := Build(ctx, o); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			st, err := Build(ctx, o)
			if err != nil {
				b.Fatal(err)
			}
			if st.Written != 0 {
				b.Fatalf("unchanged rebuild wrote %d files", st.Written)
			}
		}
	})
}

// TestTracePagesKeepNothing checks that rendering trace pages leaves the
// heap as it found it: the site's outputs live for the whole build, and
// when each kept its rendered body, a cold build of 10,000 traces held
// 40 MB more than it needed at its peak.
func TestTracePagesKeepNothing(t *testing.T) {
	dir := t.TempDir()
	const traces = 300
	writeSyntheticNode(t, dir, traces)
	n, err := Load(dir, fixtureNow)
	if err != nil {
		t.Fatal(err)
	}
	outs := siteOutputs(n)
	live := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC() // a second collection empties the buffer pool's victim cache
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var pages []output
	for _, o := range outs {
		if strings.HasPrefix(o.Path, "traces/") && strings.HasSuffix(o.Path, "-trace.html") {
			pages = append(pages, o)
		}
	}
	// The first page compiles chroma's lexer and renders the chrome,
	// once per process and per build.
	if _, err := pages[0].Render(new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	before := live()
	rendered := 0
	for _, o := range pages[1:] {
		b, err := o.Render(new(bytes.Buffer))
		if err != nil {
			t.Fatal(err)
		}
		rendered += len(b)
	}
	after := live()
	runtime.KeepAlive(outs)
	// Each page is about 7 kB; what stays must be a small part of one.
	if after > before && after-before > uint64(rendered/100) {
		t.Errorf("rendering %d trace pages (%d bytes) left %d bytes more on the heap", traces, rendered, after-before)
	}
}
