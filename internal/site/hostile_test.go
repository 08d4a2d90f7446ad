package site

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// hostileTraces are what a stranger might publish, one per file.
var hostileTraces = map[string]string{
	"script.md":      "# x\n\n<script>alert(1)</script>\n\n<SCRIPT SRC=//evil.example/x.js></SCRIPT>\n",
	"handlers.md":    "# x\n\n<img src=x onerror=alert(1)>\n<div onmouseover=\"alert(1)\">hi</div>\n<svg onload=alert(1)>\n",
	"links.md":       "# x\n\n[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) [c](vbscript:x) [d](data:text/html,<script>alert(1)</script>)\n[e](java\tscript:alert(1)) [f]( javascript:alert(1)) [g](&#106;avascript:alert(1)) [h](javascript&colon;alert(1))\n",
	"images.md":      "# x\n\n![a](javascript:alert(1)) ![b](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+) ![c](file:///etc/passwd)\n",
	"autolinks.md":   "# x\n\n<javascript:alert(1)> <vbscript:x> <data:text/html,x> www.example.org/ok\n",
	"reference.md":   "# x\n\n[click][1]\n\n[1]: javascript:alert(1) \"t\"\n",
	"frontmatter.md": "---\ntitle: \"<script>alert(1)</script>\"\ntype: \"\\\" onmouseover=\\\"alert(1)\"\ntags: [\"<img src=x onerror=alert(1)>\"]\ncites: \"javascript:alert(1)/1\"\n---\n\n# body\n",
	"bold.md":        "# <script>alert(1)</script>\n\n**Type:** \"><script>alert(1)</script>\n**Cites:** <img src=x onerror=alert(1)>/1\n",
	"iframe.md":      "# x\n\n<iframe src=\"https://evil.example\"></iframe><object data=x></object><embed src=x><base href=\"javascript:alert(1)//\"><form action=javascript:alert(1)><meta http-equiv=refresh content=\"0;url=javascript:alert(1)\">\n",
	"footnote.md":    "# x\n\nText[^a].\n\n[^a]: [note](javascript:alert(1))\n",
	"table.md":       "# x\n\n| a | b |\n|---|---|\n| <script>alert(1)</script> | [x](javascript:alert(1)) |\n",
}

// TestHostileTracesCarryNoExecutableContent builds a site from traces that
// try every trick we know and checks that no page, and no feed's content,
// can run script.
func TestHostileTracesCarryNoExecutableContent(t *testing.T) {
	dir := copyNode(t)
	for name, body := range hostileTraces {
		if err := os.WriteFile(filepath.Join(dir, "traces", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "traces", "huge-table.md"), hugeTable(1000, 20), 0o644)
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Build(context.Background(), Options{Dir: dir, Out: out, Now: fixtureNow}); err != nil {
		t.Fatal(err)
	}
	for _, f := range siteFiles(t, out) {
		switch path.Ext(f) {
		case ".html":
			t.Run(f, func(t *testing.T) {
				for _, bad := range executable(readPage(t, out, f)) {
					t.Errorf("executable content: %s", bad)
				}
			})
		case ".atom":
			t.Run(f, func(t *testing.T) {
				for _, bad := range checkAtom([]byte(readPage(t, out, f))) {
					t.Error(bad)
				}
			})
		}
	}
}

func hugeTable(rows, cols int) []byte {
	var b strings.Builder
	b.WriteString("# huge\n\n|")
	for c := range cols {
		fmt.Fprintf(&b, " h%d |", c)
	}
	b.WriteString("\n|" + strings.Repeat("---|", cols) + "\n")
	for r := range rows {
		b.WriteString("|")
		for c := range cols {
			fmt.Fprintf(&b, " <b onclick=x>%d</b> [l](javascript:%d) |", r, c)
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}
