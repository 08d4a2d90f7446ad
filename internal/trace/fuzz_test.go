package trace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/peertext"
)

// FuzzParse checks that Parse never panics on peers' text, that every
// metadata value it returns is clean (peertext.Clean), that every
// citation it reports is found again from its own spelling, and that the
// body holds no more than the input.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.md")
	if dir, ok := corpustest.Find(); ok {
		more, _ := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "traces", "0[0-2]*.md"))
		seeds = append(seeds, more...)
	}
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(data)
		if err != nil {
			return
		}
		for _, v := range append([]string{tr.Title, tr.Agent, tr.Date, tr.Type, tr.Category}, tr.Tags...) {
			if peertext.Clean(v) != v {
				t.Fatalf("metadata value %q is not clean", v)
			}
		}
		for k, v := range tr.Fields {
			if peertext.Clean(v) != v {
				t.Fatalf("field %s = %q is not clean", k, v)
			}
		}
		if len(tr.Body) > len(data) {
			t.Fatalf("body of %d bytes from %d", len(tr.Body), len(data))
		}
		for _, c := range tr.Cites {
			again := FindCitations([]byte(c.String()))
			if len(again) != 1 || again[0] != c {
				t.Fatalf("citation %+v reads back as %+v", c, again)
			}
		}
		for _, c := range FindCitations(data) {
			if c.Seq < 1 || c.Agent == "" {
				t.Fatalf("bad citation %+v", c)
			}
		}
	})
}
