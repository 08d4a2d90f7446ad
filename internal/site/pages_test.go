package site

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func readPage(t *testing.T, out, page string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEveryAgentHasAPageLinkedFromHomePeersAndSignal builds the fixture
// and checks that every agent named on the site has a page, that the
// agents index lists it, and that home, peers and SIGNAL link names to
// those pages rather than to the peer's URL.
func TestEveryAgentHasAPageLinkedFromHomePeersAndSignal(t *testing.T) {
	out, _ := buildFixture(t)
	index := readPage(t, out, "agents/index.html")
	for _, a := range []string{"ada", "bob", "cyd", "eve", "fern"} {
		page := "agents/" + a + ".html"
		if !strings.Contains(readPage(t, out, page), "<h1>"+a+"</h1>") {
			t.Errorf("%s has no page headed by its name", a)
		}
		if !strings.Contains(index, `href="../`+page+`"`) {
			t.Errorf("agents index does not link %s", page)
		}
	}
	for _, p := range []string{"index.html", "peers.html", "signal.html"} {
		if !strings.Contains(readPage(t, out, p), `<a href="agents/ada.html">ada</a>`) {
			t.Errorf("%s does not link ada to her page", p)
		}
	}
	ada := readPage(t, out, "agents/ada.html")
	for _, want := range []string{"manifest updated 2026-02-26 11:30 UTC", "Citation graphs in practice", "How it was earned", "IDENTITY.md"} {
		if !strings.Contains(ada, want) {
			t.Errorf("ada's page lacks %q", want)
		}
	}
}

func TestNavigationReachesTracesAndAgentsFromEveryPage(t *testing.T) {
	out, _ := buildFixture(t)
	for _, f := range siteFiles(t, out) {
		if filepath.Ext(f) != ".html" || f == "404.html" {
			continue
		}
		page, root := readPage(t, out, f), rootOf(f)
		for _, want := range []string{`href="` + root + `traces/index.html"`, `href="` + root + `agents/index.html"`} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: no %s in its navigation", f, want)
			}
		}
	}
}

var h1RE = regexp.MustCompile(`<h1[ >]`)

func TestTracePageReadsWell(t *testing.T) {
	out, _ := buildFixture(t)
	page := readPage(t, out, "traces/001-hello-mesh.html")
	if n := len(h1RE.FindAllString(page, -1)); n != 1 {
		t.Errorf("trace page has %d h1, want 1", n)
	}
	for _, want := range []string{
		`<a href="../mesh/a1a1a1a1a1a1a1a1.html" title=`, // ada/1 in the body, linked to the copy the node keeps
		`rel="next"`, // 002 follows
		`<table tabindex="0">`,
		`class="metaline"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("trace page lacks %s", want)
		}
	}
	if strings.Contains(page, " align=") || strings.Contains(page, "rel=\"prev\"") {
		t.Error("trace page uses the align attribute, or links a previous trace the first one has not")
	}
	code := readPage(t, out, "traces/002-citation-graph.html")
	if !strings.Contains(code, `<pre tabindex="0" class="chroma"><code>`) || !strings.Contains(code, `<span class="k">map</span>`) {
		t.Error("go code is not highlighted into classes")
	}
	css := readPage(t, out, "style.css")
	if !strings.Contains(css, ".chroma .kd {") || !strings.Contains(css, "prefers-color-scheme: dark") {
		t.Error("style.css lacks the highlighting classes")
	}
}

func TestTableAlignmentBecomesClasses(t *testing.T) {
	got, err := renderTrace([]byte("| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n"), "T", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<td class="align-left">1</td>`, `<td class="align-center">2</td>`, `<td class="align-right">3</td>`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("no %s in\n%s", want, got)
		}
	}
}

func TestBodyHeadingsSitUnderThePageTitle(t *testing.T) {
	tests := []struct{ name, src, want, not string }{
		{"title heading dropped", "# T\n\n## Work\n", "<h2 id=\"work\">Work</h2>", "<h1"},
		{"another h1 goes down a level", "# Other\n\n## Work\n", "<h2 id=\"other\">Other</h2>\n<h3", "<h1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := renderTrace([]byte(tt.src), "T", nil, "")
			if !strings.Contains(string(got), tt.want) || strings.Contains(string(got), tt.not) {
				t.Errorf("got\n%s", got)
			}
		})
	}
}

func TestFeedsSeparateTracesFromValidations(t *testing.T) {
	out, _ := buildFixture(t)
	traces, votes := readPage(t, out, "feed.atom"), readPage(t, out, "validations.atom")
	for name, f := range map[string]string{"feed.atom": traces, "validations.atom": votes} {
		if !strings.Contains(f, `<link href="https://fern.example.org/`+name+`" rel="self"`) {
			t.Errorf("%s has no rel=self link", name)
		}
	}
	if !strings.Contains(traces, `<content type="html"`) || strings.Contains(traces, "Validation of") {
		t.Error("traces feed lacks content or carries validations")
	}
	if !strings.Contains(votes, "Validation of Citation graphs in practice") {
		t.Error("validations feed lacks a validation")
	}
}

func TestHeadCarriesDescriptionCanonicalAndIcon(t *testing.T) {
	out, _ := buildFixture(t)
	page := readPage(t, out, "traces/002-citation-graph.html")
	for _, want := range []string{
		`<meta name="description" content="Every agent/seq citation is an edge.`,
		`<link rel="canonical" href="https://fern.example.org/traces/002-citation-graph.html">`,
		`<meta property="og:title" content="PATTERN: Citations make the mesh a graph">`,
		`<link rel="icon" href="../favicon.svg" type="image/svg+xml">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("trace page head lacks %s", want)
		}
	}
	if !strings.Contains(readPage(t, out, "sitemap.xml"), "<loc>https://fern.example.org/traces/002-citation-graph.html</loc><lastmod>2026-02-25T") {
		t.Error("sitemap gives no lastmod of a trace page (its last validation)")
	}
}

func TestSlugsAreSafeAndUnique(t *testing.T) {
	agents := []*Agent{{Name: "Ada"}, {Name: "ada!"}, {Name: "../../etc"}, {Name: "index"}, {Name: "名前"}}
	assignSlugs(agents)
	seen := map[string]bool{}
	for _, a := range agents {
		if seen[a.Slug] || a.Slug == "index" || !regexp.MustCompile(`^[a-z0-9_-]+$`).MatchString(a.Slug) {
			t.Errorf("%q got slug %q", a.Name, a.Slug)
		}
		seen[a.Slug] = true
	}
}
