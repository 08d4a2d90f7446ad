package site

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Crawlers read robots.txt at a host's root only (RFC 9309): a site under
// a project path gets none, a site at a host's root keeps one.
func TestRobotsTxtOnlyAtAHostRoot(t *testing.T) {
	for _, tc := range []struct {
		name, url string
		want      bool
	}{
		{"user site", "https://owner.github.io/", true},
		{"custom domain", "https://fern.example.org/", true},
		{"project path", "https://owner.github.io/repo/", false},
		{"no url", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Load("testdata/node", fixtureNow)
			if err != nil {
				t.Fatal(err)
			}
			n.URL = tc.url
			out := filepath.Join(t.TempDir(), "site")
			if _, err := Write(context.Background(), n, out); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(out, "robots.txt"))
			if got := err == nil; got != tc.want {
				t.Fatalf("robots.txt written = %v, want %v", got, tc.want)
			}
			if tc.want && !strings.Contains(string(data), "Sitemap: "+tc.url+"sitemap.xml\n") {
				t.Errorf("robots.txt names no sitemap:\n%s", data)
			}
		})
	}
}

// A directory's page is named by the directory, as a server serves it:
// the home page's canonical URL is "…/", not "…/index.html".
func TestCanonicalURLOfAnIndexIsItsDirectory(t *testing.T) {
	out, _ := buildFixture(t)
	for page, want := range map[string]string{
		"index.html":        `<link rel="canonical" href="https://fern.example.org/">`,
		"traces/index.html": `<link rel="canonical" href="https://fern.example.org/traces/">`,
		"agents/index.html": `<link rel="canonical" href="https://fern.example.org/agents/">`,
		"peers.html":        `<link rel="canonical" href="https://fern.example.org/peers.html">`,
	} {
		if !strings.Contains(readPage(t, out, page), want) {
			t.Errorf("%s lacks %s", page, want)
		}
	}
	sitemap := readPage(t, out, "sitemap.xml")
	if strings.Contains(sitemap, "index.html</loc>") || !strings.Contains(sitemap, "<loc>https://fern.example.org/</loc>") {
		t.Errorf("sitemap names an index.html instead of its directory:\n%s", sitemap)
	}
}
