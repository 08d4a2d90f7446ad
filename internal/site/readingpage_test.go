package site

import (
	"bytes"
	"html/template"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// readingTemplate is templates/reading.html, the specification the
// hand-written reading page follows.
var readingTemplate = mustParsePages("reading")["reading"]

// TestReadingPageMatchesTemplate renders reading pages by hand and by
// templates/reading.html, on copies whose every field is hostile or
// unusual, and wants the same bytes.
func TestReadingPageMatchesTemplate(t *testing.T) {
	n, err := Load("testdata/node", fixtureNow)
	if err != nil {
		t.Fatal(err)
	}
	idx := prepare(n)
	hostile := []string{"", "plain", `<script>alert("x")</script>`, "a'b\"c&d+e<f>g", "nul\x00byte", "naïve ünïcödé — ✓", "bad\xffutf8\xc3",
		"javascript:alert(1)", "JavaScript:x", "http://x.org/a b?c=d&e=f#g", "mailto:a@b", "data:text/html,<b>", "../up/%41 (paren) {brace} `tick` \\ ^|",
		"\ufdd0\uffff\u2028", "x/y:z", "/abs:olute", n.Agent}
	for _, a := range n.Agents {
		hostile = append(hostile, a.Name)
	}
	for i, s := range hostile {
		s2 := hostile[(i+5)%len(hostile)]
		r := &Ref{Agent: s, Seq: manifest.Seq(i), Hash: manifest.Hash("sha256:" + s2), Title: s2, URL: s,
			Submitted: fixtureNow.Add(-time.Duration(i) * time.Hour), Status: manifest.Status(s2), Passing: i % 2, Seen: i % 3, Cut: i%2 == 0}
		if i%3 == 1 {
			r.Submitted = time.Time{}
		}
		if i%4 == 1 {
			r.Ours = &Vote{File: "validations/" + s2 + ".md", Total: i}
		}
		for _, root := range []string{"", "../", s2} {
			v := &view{Root: root, Title: s, Nav: "agents", Desc: s2, Node: n, idx: idx, Ref: r,
				Body: template.HTML("<p>body " + s + "</p>")}
			if i%2 == 0 {
				v.Canonical = "https://x.org/" + s
			}
			compareReadingPage(t, v)
		}
	}
}

func compareReadingPage(t *testing.T, v *view) {
	t.Helper()
	var want bytes.Buffer
	if err := readingTemplate.ExecuteTemplate(&want, "layout", v); err != nil {
		t.Fatal(err)
	}
	got, err := renderReadingPage(new(bytes.Buffer), v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("reading page %q (root %q) differs from templates/reading.html's:\n%s", v.Title, v.Root, firstDiff(want.String(), string(got)))
	}
}
