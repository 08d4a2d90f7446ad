package site

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
