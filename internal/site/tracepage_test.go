package site

import (
	"bytes"
	"html/template"
	"runtime"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// traceTemplate is templates/trace.html, the specification the
// hand-written trace page follows.
var traceTemplate = mustParsePages("trace")["trace"]

// TestTracePageMatchesTemplate renders trace pages by hand and by
// templates/trace.html, on the fixture's traces and on traces whose every
// field is hostile or unusual, and wants the same bytes.
func TestTracePageMatchesTemplate(t *testing.T) {
	n, err := Load("testdata/node", fixtureNow)
	if err != nil {
		t.Fatal(err)
	}
	idx := prepare(n)
	hostile := []string{"", "plain", `<script>alert("x")</script>`, "a'b\"c&d+e<f>g", "nul\x00byte", "naïve ünïcödé — ✓", "bad\xffutf8\xc3",
		"javascript:alert(1)", "JavaScript:x", "http://x.org/a b?c=d&e=f#g", "mailto:a@b", "data:text/html,<b>", "../up/%41 (paren) {brace} `tick` \\ ^|",
		"\ufdd0\uffff\u2028", "x/y:z", "/abs:olute"}
	for i, s := range hostile {
		s2 := hostile[(i+5)%len(hostile)]
		for j, base := range n.Traces {
			tr := *base
			tr.Title, tr.Type, tr.Category, tr.Status = s, s2, s, "status "+tr.Status+manifest.Status(s2)
			tr.Hash = tr.Hash + manifest.Hash("'"+hostileHash(s))
			tr.File = "traces/" + s2 + ".md"
			tr.Tags = []string{s, s2}
			tr.Meta = []Field{{Name: s2, Value: s}}
			tr.Cites = append([]string{s, "nobody/1"}, base.Cites...)
			tr.CitedBy = append([]string{s2}, base.CitedBy...)
			tr.Copy, tr.Seen, tr.Passing = i%2 == 0, i%3, i%2
			if i%2 == 1 {
				tr.Submitted = time.Time{}
			}
			tr.Received = []*Vote{
				{Validator: s, Result: s2, Total: i, ValidatedAt: fixtureNow},
				{Validator: n.Agent, Result: "pass", Total: 21, Scores: [6]int{1, 2, 3, 4, 5, 6}, HasScores: true},
			}[:i%3]
			for _, root := range []string{"", "../", s2} {
				v := &view{Root: root, Title: s, Nav: "traces", Desc: s2, Node: n, idx: idx, Trace: &tr,
					Body: template.HTML("<p>body " + s + "</p>")}
				if i%2 == 0 {
					v.Canonical = "https://x.org/" + s
				}
				if j+1 < len(n.Traces) {
					v.Prev = n.Traces[j+1]
				}
				if i%4 != 0 && j > 0 {
					v.Next = &tr
				}
				compareTracePage(t, v)
			}
		}
	}
}

func hostileHash(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

func compareTracePage(t *testing.T, v *view) {
	t.Helper()
	var want bytes.Buffer
	if err := traceTemplate.ExecuteTemplate(&want, "layout", v); err != nil {
		t.Fatal(err)
	}
	got, err := renderTracePage(new(bytes.Buffer), v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("trace page %q (root %q) differs from templates/trace.html's:\n%s", v.Title, v.Root, firstDiff(want.String(), string(got)))
	}
}

// TestTracePageRendersIntoTheWritersBuffer renders a trace page, its body
// already rendered, into a buffer that has held one before: the page's
// bytes are the buffer's, not a copy of them (a cold build of 10,000
// traces and 3,000 copies copied 92 MB so), and what else rendering it
// allocates is a small part of the page.
func TestTracePageRendersIntoTheWritersBuffer(t *testing.T) {
	n, err := Load("testdata/node", fixtureNow)
	if err != nil {
		t.Fatal(err)
	}
	idx := prepare(n)
	tr := n.Traces[0]
	v := &view{Root: rootOf(pagePath(tr.File)), Title: tr.Title, Nav: "traces", Node: n, idx: idx, Trace: tr}
	if v.Body, err = renderTrace(tr.Body, tr.Title, idx, v.Root); err != nil {
		t.Fatal(err)
	}
	buf := new(bytes.Buffer)
	page, err := renderTracePage(buf, v)
	if err != nil {
		t.Fatal(err)
	}
	size := len(page)
	const runs = 50
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		if page, err = renderTracePage(buf, v); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if &page[0] != &buf.Bytes()[0] {
		t.Error("the page is not the buffer's bytes")
	}
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > uint64(size/4) {
		t.Errorf("rendering a %d-byte page allocated %d bytes, want under %d", size, per, size/4)
	}
}
