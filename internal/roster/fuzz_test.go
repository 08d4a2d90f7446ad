package roster

import (
	"net/url"
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

// FuzzNormalizeURL checks that NormalizeURL never panics, that its form is
// a fixed point (normalising it again gives it back), and that the form
// is a URL the fetcher reads the same way: same scheme, host and path.
func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{"https://a.example/t/", "http://localhost.:8080/%67ood1", "https://a.example:443/a%2fb/",
		"http://[::1]:80/x", "https://a.example/%7e/%C3%A9/", "https://a.example/a/../b/", "HTTPS://A.Example:/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := NormalizeURL(s)
		if err != nil {
			return
		}
		again, err := NormalizeURL(u)
		if err != nil || again != u {
			t.Fatalf("%q normalises to %q, then to %q (%v)", s, u, again, err)
		}
		p, err := url.Parse(u)
		if err != nil || p.String() != u {
			t.Fatalf("%q normalises to %q, which parses as %q (%v)", s, u, p, err)
		}
	})
}
