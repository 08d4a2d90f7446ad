package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/peertext"
)

// FuzzParse checks that Parse never panics, that every metadata value
// it returns is clean (peertext.Clean leaves it as it is), and that parse → Format → parse
// gives the same entries (the canonical fields; Title and Category belong to
// legacy layouts and are not written).
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.md")
	if dir, ok := corpustest.Find(); ok {
		more, _ := filepath.Glob(filepath.Join(dir, "*", "*", "MANIFEST.md"))
		seeds = append(seeds, more...)
	}
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := Parse(data)
		if err != nil {
			return
		}
		cleanValues(t, m)
		// Canonical rows can be a few bytes longer than the row they came
		// from (a date gains its time); keep clear of the line limit.
		if len(data) > MaxLineBytes/2 {
			return
		}
		out := m.Format()
		back, _, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Format) failed: %v\n%s", err, out)
		}
		if len(back.Archives) != len(m.Archives) {
			t.Fatalf("%d archive links after round trip, want %d\n%s", len(back.Archives), len(m.Archives), out)
		}
		for i, a := range back.Archives {
			if a != m.Archives[i] {
				t.Fatalf("archive %d: got %+v, want %+v\n%s", i, a, m.Archives[i], out)
			}
		}
		if back.Rules != m.Rules {
			t.Fatalf("rules %q after round trip, want %q\n%s", back.Rules, m.Rules, out)
		}
		if back.Pages != m.Pages {
			t.Fatalf("pages %q after round trip, want %q\n%s", back.Pages, m.Pages, out)
		}
		want := m.newestFirst()
		if len(back.Entries) != len(want) {
			t.Fatalf("%d entries after round trip, want %d\n%s", len(back.Entries), len(want), out)
		}
		for i, e := range back.Entries {
			w := want[i]
			if e.Seq != w.Seq || e.Hash != w.Hash || e.File != w.File || e.Type != w.Type ||
				e.Status != w.Status || !e.Submitted.Equal(w.Submitted) {
				t.Fatalf("entry %d: got %+v, want %+v\n%s", i, e, w, out)
			}
		}
	})
}

// cleanValues fails t when a metadata value of m holds what
// peertext.Clean would replace.
func cleanValues(t *testing.T, m *Manifest) {
	t.Helper()
	values := []string{m.Agent, m.Rules, m.Pages}
	for _, e := range m.Entries {
		values = append(values, e.Type, string(e.Status), e.Title, e.Category)
	}
	for _, v := range values {
		if peertext.Clean(v) != v {
			t.Fatalf("metadata value %q is not clean", v)
		}
	}
}
