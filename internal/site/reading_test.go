package site

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// hostileCopies loads the fixture node and adds a peer's trace with a
// copy for each hostile trace, as if the heartbeat had kept them.
func hostileCopies(t *testing.T) *Node {
	t.Helper()
	n, err := Load("testdata/node", fixtureNow)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for name, body := range hostileTraces {
		i++
		h := manifest.HashBytes([]byte(body))
		n.Others = append(n.Others, &Ref{Agent: "mallory", Seq: manifest.Seq(i), Hash: h, Title: "<script>alert(1)</script> " + name,
			URL: "https://mallory.example/traces/" + name, Submitted: fixtureNow, Status: manifest.StatusPending,
			Text: []byte(body + "\n[rel](notes/x.md) ![pixel](https://tracker.example/p.gif) ![rel](p.png)\n"), Excerpt: excerpt([]byte(body)), Read: readingPage(h)})
	}
	return n
}

// anchorRE finds every link and its attributes.
var anchorRE = regexp.MustCompile(`<a ([^>]*)>`)

// TestPeerCopiesAreSanitizedLikePages: the reading pages and feeds made
// from copies of a stranger's traces carry no executable content, load
// nothing from off the site (images show their alt text), resolve the
// text's relative links against the trace's own URL, and every link to
// the peer carries rel="nofollow ugc".
func TestPeerCopiesAreSanitizedLikePages(t *testing.T) {
	n := hostileCopies(t)
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Write(context.Background(), n, out); err != nil {
		t.Fatal(err)
	}
	pages := 0
	for _, f := range siteFiles(t, out) {
		page := readPage(t, out, f)
		switch {
		case path.Ext(f) == ".atom":
			for _, bad := range checkAtom([]byte(page)) {
				t.Errorf("%s: %s", f, bad)
			}
		case strings.HasPrefix(f, meshDir+"/") && path.Ext(f) == ".html" && !strings.Contains(f, "pages/") && path.Base(f) != "index.html":
			if !strings.Contains(page, "mallory") {
				continue
			}
			pages++
			for _, bad := range executable(page) {
				t.Errorf("%s: executable content: %s", f, bad)
			}
			if strings.Contains(page, "<img") || strings.Contains(page, "tracker.example") {
				t.Errorf("%s: an image of the peer's text is loaded", f)
			}
			if !strings.Contains(page, `href="https://mallory.example/traces/notes/x.md" rel="nofollow ugc noopener"`) {
				t.Errorf("%s: the relative link is not resolved against the trace's URL", f)
			}
			for _, m := range anchorRE.FindAllStringSubmatch(page, -1) {
				if strings.Contains(m[1], "mallory.example") && !strings.Contains(m[1], `rel="nofollow ugc noopener"`) {
					t.Errorf("%s: a link to the peer without rel: <a %s>", f, m[1])
				}
			}
		}
	}
	if pages != len(hostileTraces) {
		t.Errorf("%d reading pages of the hostile copies, want %d", pages, len(hostileTraces))
	}
}

// FuzzPeerCopy checks that whatever a peer's copy holds, its reading page
// carries no executable content and loads no image.
func FuzzPeerCopy(f *testing.F) {
	for _, body := range hostileTraces {
		f.Add(body, "https://mallory.example/traces/x.md")
	}
	f.Add("[a](../../x) ![i](//evil.example/p.gif)", "javascript:alert(1)")
	f.Fuzz(func(t *testing.T, body, source string) {
		h := manifest.HashBytes([]byte(body))
		r := &Ref{Agent: "mallory", Seq: 1, Hash: h, Title: "t", URL: source, Text: []byte(body), Read: readingPage(h), Excerpt: excerpt([]byte(body))}
		n := &Node{Agent: "fern", URL: "https://fern.example.org/", Others: []*Ref{r}}
		idx := prepare(n)
		html, err := renderCopy(r.Text, r.Title, idx, "../", r.URL)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range executable(string(html)) {
			t.Errorf("body %q: executable content: %s", body, bad)
		}
		if strings.Contains(string(html), "<img") {
			t.Errorf("body %q: an image is loaded", body)
		}
		feed, err := meshFeed(n, idx)
		if err != nil {
			return
		}
		for _, bad := range checkAtom(feed) {
			t.Errorf("body %q: %s", body, bad)
		}
	})
}

// TestReadingPageOfHighlightBombIsBounded: 16 KiB of code whose every
// token highlighting wraps in a span, by the site's lexer or by chroma,
// is shown as escaped text, so a reading page stays under its bound.
func TestReadingPageOfHighlightBombIsBounded(t *testing.T) {
	for _, tc := range []struct{ lang, line string }{
		{"go", "1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6\n"},
		{"rust", "a b c d e f g h i j k l m n o p\n"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			text := "```" + tc.lang + "\n" + strings.Repeat(tc.line, 500) + "```\n"
			h := manifest.HashBytes([]byte(text))
			r := &Ref{Agent: "mallory", Seq: 1, Hash: h, Title: "bomb", URL: "https://mallory.example/traces/x.md", Text: []byte(text), Read: readingPage(h)}
			n := &Node{Agent: "fern", Others: []*Ref{r}}
			body, err := readingBody(r, prepare(n), "../")
			if err != nil {
				t.Fatal(err)
			}
			if len(body) > readingBodyBytes || !strings.HasPrefix(string(body), `<pre class="copy">`) {
				t.Errorf("reading body of %d bytes of code: %d bytes, starts %.40q", len(text), len(body), body)
			}
		})
	}
}

// takeDown marks the fixture ledger's trace titled title as taken down
// for why, as the heartbeat does.
func takeDown(t *testing.T, dir, title, why string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(ledgerFile))
	l, err := ledger.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range l.Traces {
		if tr.Title == title {
			l.TakeDown(tr.Hash, why)
		}
	}
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
}

// TestTakenDownTracesLeaveTheSiteAtTheNextBuild: a trace its author
// withdrew leaves every list, its reading page and the feeds; a disputed
// one keeps its row, marked, and loses its reading page and feed entries.
// Both go from a site built before, at the next build.
func TestTakenDownTracesLeaveTheSiteAtTheNextBuild(t *testing.T) {
	dir := copyNode(t)
	out := filepath.Join(t.TempDir(), "site")
	build := func() {
		if _, err := Build(context.Background(), Options{Dir: dir, Out: out, Now: fixtureNow}); err != nil {
			t.Fatal(err)
		}
	}
	build()
	withdrawn, disputed := "mesh/a1a1a1a1a1a1a1a1.html", "mesh/4f2a9c1b7d3e5a6b.html"
	for _, p := range []string{withdrawn, disputed} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Fatalf("before the take-down: %v", err)
		}
	}
	takeDown(t, dir, "What a heartbeat costs", ledger.Withdrawn)
	takeDown(t, dir, "Citation graphs in practice", ledger.Disputed)
	build()
	for _, p := range []string{withdrawn, disputed} {
		if _, err := os.Stat(filepath.Join(out, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there: %v", p, err)
		}
	}
	for _, f := range []string{"mesh/index.html", "agents/ada.html", "index.html", meshFeedPath, "agents/ada.atom", "traces/001-hello-mesh.html"} {
		if page := readPage(t, out, f); strings.Contains(page, "What a heartbeat costs") || strings.Contains(page, withdrawn) {
			t.Errorf("%s still shows the withdrawn trace", f)
		}
	}
	for _, f := range []string{meshFeedPath, "agents/ada.atom"} {
		if strings.Contains(readPage(t, out, f), "Citation graphs in practice") {
			t.Errorf("%s still carries the disputed trace", f)
		}
	}
	list := readPage(t, out, "mesh/index.html")
	_, row, _ := strings.Cut(list, ">Citation graphs in practice</a>")
	row, _, _ = strings.Cut(row, "</tr>")
	if !strings.Contains(row, "Disputed:") || strings.Contains(row, `class="excerpt">Citations`) {
		t.Errorf("the disputed trace's row is not marked, or keeps its excerpt: %s", row)
	}
}

// TestPeerThatSaysWhereItsPagesAreIsLinkedThere: a peer whose MANIFEST.md
// has a "pages:" line (bob, in the fixture's cursors) is read on its own
// pages: its rows, mentions and feed entries link there, its excerpt
// still shows, and the node makes no reading page of its own for it.
func TestPeerThatSaysWhereItsPagesAreIsLinkedThere(t *testing.T) {
	out, _ := buildFixture(t)
	const page = "https://bob.example.org/mesh/traces/003-backfilled.html"
	list := readPage(t, out, "mesh/index.html")
	_, row, _ := strings.Cut(list, `<a class="title" href="`+page+`" rel="nofollow ugc noopener">Backfilled seed notes</a>`)
	row, _, _ = strings.Cut(row, "</tr>")
	if !strings.Contains(row, `<p class="excerpt">Notes on the seed`) {
		t.Errorf("bob's row does not link its page with its excerpt: %.300s", row)
	}
	if _, err := os.Stat(filepath.Join(out, "mesh", "9e8d7c6b5a493827.html")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a reading page was made for a trace its agent serves as a page: %v", err)
	}
	if !strings.Contains(readPage(t, out, "mesh/a1a1a1a1a1a1a1a1.html"), `<a href="`+page+`" title="Backfilled seed notes" rel="nofollow ugc noopener">bob/3</a>`) {
		t.Error("a mention of bob/3 does not link bob's page")
	}
	if !strings.Contains(readPage(t, out, meshFeedPath), "href=&#34;"+page+"&#34; rel=&#34;ugc nofollow&#34;") {
		t.Error("mesh.atom does not link bob's page")
	}
}
