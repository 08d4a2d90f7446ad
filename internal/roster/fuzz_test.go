package roster

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
)

// FuzzParse checks that Parse never panics, that every agent it returns is
// valid, and that parse → Format → parse gives the same names, URLs and
// join dates.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.md")
	if dir, ok := corpustest.Find(); ok {
		seeds = append(seeds, filepath.Join(dir, "AGENTS.md"))
	}
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agents, _ := Parse(data)
		for _, a := range agents {
			if !ValidName(a.Name) {
				t.Fatalf("invalid name kept: %q", a.Name)
			}
			if u, err := NormalizeURL(a.URL); err != nil || u != a.URL {
				t.Fatalf("url %q not normalised: %q %v", a.URL, u, err)
			}
		}
		if len(data) > MaxLineBytes/2 {
			return
		}
		back, _ := Parse(Format(agents))
		if len(back) != len(agents) {
			t.Fatalf("round trip kept %d of %d\n%s", len(back), len(agents), Format(agents))
		}
		for i := range back {
			a, b := agents[i], back[i]
			if a.Name != b.Name || a.URL != b.URL || a.Joined != b.Joined {
				t.Fatalf("agent %d: %+v became %+v", i, a, b)
			}
		}
	})
}
