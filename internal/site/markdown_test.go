package site

import (
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

func TestSafeURL(t *testing.T) {
	tests := []struct {
		url  string
		safe bool
	}{
		{"https://example.org/x", true},
		{"http://example.org/x", true},
		{"mailto:a@example.org", true},
		{"001-hello.md", true},
		{"../index.html#top", true},
		{"#fn:1", true},
		{"//example.org/x", true},
		{"?q=a:b", true},
		{"dir/a:b", true},
		{"javascript:alert(1)", false},
		{"JAVASCRIPT:alert(1)", false},
		{" javascript:alert(1)", false},
		{"java\tscript:alert(1)", false},
		{"java\nscript:alert(1)", false},
		{"vbscript:msgbox", false},
		{"data:text/html,x", false},
		{"data:image/png;base64,AAAA", false},
		{"file:///etc/passwd", false},
		{"ftp://example.org", false},
		{"a:b", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			if got := safeURL(tt.url); got != tt.safe {
				t.Errorf("safeURL(%q) = %v, want %v", tt.url, got, tt.safe)
			}
		})
	}
}

func TestRenderMarkdownSupportsTheExtensionsTracesUse(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"gfm table", "| a | b |\n|---|---|\n| 1 | 2 |\n", "<td>1</td>"},
		{"strikethrough", "~~gone~~", "<del>gone</del>"},
		{"autolink", "see https://example.org/x now", `<a href="https://example.org/x" rel="nofollow ugc noopener">`},
		{"task list", "- [x] done\n- [ ] todo\n", `<input type="checkbox" checked disabled aria-label="done">`},
		{"footnote", "a[^1]\n\n[^1]: note\n", `class="footnote-ref"`},
		{"heading id", "## Work done\n", `<h2 id="work-done">`},
		{"raw html omitted", "<b>x</b>", "<!-- raw HTML omitted -->"},
		{"unsafe link keeps its text", "[click me](javascript:alert(1))", "<p>click me</p>"},
		{"unsafe image keeps alt text", "![a cat](data:image/png;base64,AA)", "<p>a cat</p>"},
		{"unsafe autolink becomes text", "<javascript:alert(1)>", "<p>javascript:alert(1)</p>"},
		{"relative link kept", "[next](002-next.md)", `<a href="002-next.md">next</a>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderMarkdown([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), tt.want) {
				t.Errorf("render %q:\n%s\nwant it to contain %s", tt.src, got, tt.want)
			}
		})
	}
}

// TestMentionsLinkLikeCitations checks which "agent/seq" words of a trace
// body become links: the same words trace.FindCitations takes for
// citations, sentence punctuation after them included.
func TestMentionsLinkLikeCitations(t *testing.T) {
	n := &Node{Agent: "fern", Traces: []*Trace{{Entry: manifest.Entry{Seq: 1, File: "traces/001-a.md", Title: "A"}}},
		Others: []*Ref{{Agent: "ada", Seq: 2, Title: "Two", URL: "https://ada.example.org/traces/002.md"}}}
	idx := prepare(n)
	ada := `<a href="https://ada.example.org/traces/002.md" title="Two" rel="nofollow ugc noopener">ada/2</a>`
	for _, c := range []struct{ src, want string }{
		{"Builds on ada/2.", "Builds on " + ada + "."},
		{"Builds on ada/2, and fern/1; done", "Builds on " + ada + `, and <a href="../traces/001-a.html" title="A">fern/1</a>; done`},
		{"(ada/2)", "(" + ada + ")"},
		{"ada/2-3", ada + "-3"},
		{"ada/2.5 is a version", "ada/2.5 is a version"},
		{"ada/2/x is a path", "ada/2/x is a path"},
		{"ada/2a", "ada/2a"},
		{"x.ada/2 and ada/3", "x.ada/2 and ada/3"},
		{"`ada/2` in code", "<code>ada/2</code> in code"},
	} {
		b, err := renderTrace([]byte(c.src), "", idx, "../")
		if err != nil {
			t.Fatal(err)
		}
		got := strings.TrimSuffix(strings.TrimPrefix(string(b), "<p>"), "</p>\n")
		if got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

// TestParagraphOfLinksAloneIsMarked checks that a paragraph holding only
// links (a "Connections" line of mentions) gets the class the stylesheet
// makes into whole, line-high targets, and a sentence with links does not:
// axe's target-size rule failed such a line on a phone.
func TestParagraphOfLinksAloneIsMarked(t *testing.T) {
	n := &Node{Agent: "fern", Traces: []*Trace{{Entry: manifest.Entry{Seq: 1, File: "traces/001-a.md", Title: "A"}}},
		Others: []*Ref{{Agent: "ada", Seq: 2, Title: "Two", URL: "https://ada.example.org/traces/002.md"}}}
	idx := prepare(n)
	for _, c := range []struct {
		src    string
		marked bool
	}{
		{"ada/2\nfern/1", true},
		{"ada/2 fern/1", true},
		{"[x](https://x.example/) <https://y.example/>", true},
		{"ada/2", false},
		{"See ada/2 and fern/1.", false},
		{"ada/2 **fern/1**", false},
	} {
		b, err := renderTrace([]byte(c.src), "", idx, "../")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.HasPrefix(string(b), `<p class="links">`); got != c.marked {
			t.Errorf("%q: marked %v, want %v:\n%s", c.src, got, c.marked, b)
		}
	}
}

// TestHugeCodeBlockIsShownPlain checks that a code block over
// maxHighlighted is escaped and shown without chroma, fast, while a small
// one is highlighted.
func TestHugeCodeBlockIsShownPlain(t *testing.T) {
	small := "```go\nfunc f() {}\n```\n"
	huge := "```go\n" + strings.Repeat("x := \"<b>\" // a comment\n", maxHighlighted/20) + "```\n"
	b, err := renderMarkdown([]byte(small))
	if err != nil || !strings.Contains(string(b), `<span class="k">func</span>`) {
		t.Fatalf("small block not highlighted (%v):\n%s", err, b)
	}
	start := time.Now()
	b, err = renderMarkdown([]byte(huge))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), `<pre tabindex="0"><code>x := &quot;&lt;b&gt;&quot;`) || strings.Contains(string(b), `<span class=`) {
		t.Errorf("huge block not shown plain and escaped:\n%.200s", b)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("rendering a %d-byte block took %v", len(huge), d)
	}
}
