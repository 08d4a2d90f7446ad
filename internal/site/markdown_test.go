package site

import (
	"strings"
	"testing"
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
