package validation

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
)

// FuzzParse checks that Parse never panics and that parse → Format →
// parse keeps every canonical field, with Format a fixpoint.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.md")
	if dir, ok := corpustest.Find(); ok {
		for _, p := range []string{"czero/traces/065-trace.md", "jarvis-maximum/traces/148-trace.md", "jarvis-maximum/traces/073-trace.md"} {
			seeds = append(seeds, filepath.Join(dir, "agents-hosted", filepath.FromSlash(p)))
		}
	}
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err != nil {
			return
		}
		out := v.Format()
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Format) failed: %v\n%s", err, out)
		}
		want := *v
		want.TraceRef, want.Layout = "", LayoutCanonical
		back.TraceRef = ""
		if *back != want {
			t.Fatalf("round trip\n got %+v\nwant %+v\n%s", *back, want, out)
		}
		if !bytes.Equal(back.Format(), out) {
			t.Fatalf("Format is not a fixpoint")
		}
	})
}
