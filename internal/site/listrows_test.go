package site

import (
	"bytes"
	"html/template"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// oldRows are the row templates traceRows and refRows replace, as they
// were, so that the hand-written rows are checked against them.
const oldRows = `{{define "oldTraceRows"}}{{range .Pager.Traces}}<tr data-hash="{{.Hash}}" data-status="{{.Status}}"><td class="num" data-label="seq">{{.Seq}}</td><td data-label="trace"><a href="{{page $.Root .File}}">{{.Title}}</a></td><td data-label="type">{{.Type}}</td><td data-label="status">{{template "status" .Status}}{{if .Copy}} <span class="muted" data-copy title="another agent lists the same bytes: they earn nobody">copy</span>{{end}}</td><td class="num" data-label="validations">{{len .Received}}</td><td class="nowrap" data-label="submitted">{{day .Submitted}}</td></tr>{{end}}{{end}}
{{define "oldreftitle"}}<a class="title" href="{{.V.Href .P.Root}}"{{if .V.External}} rel="nofollow ugc noopener"{{end}}>{{.V.Title}}</a>{{end}}
{{define "oldRefRows"}}{{range .V}}<tr><td data-label="trace">{{if or .Page .Read .URL}}{{template "oldreftitle" (at $.P .)}}{{else}}<span class="title">{{.Title}}</span>{{end}} <span class="muted">· seq {{.Seq}}</span>{{if .Excerpt}}<p class="excerpt">{{.Excerpt}}</p>{{else if .Disputed}}<p class="excerpt muted">Disputed: its bytes no longer match its hash, so this node shows no copy.</p>{{end}}</td><td data-label="agent">{{template "agent" ($.P.AgentLink .Agent)}}</td><td data-label="status">{{template "status" .Status}}{{if .Copy}} <span class="muted" data-copy title="another agent lists the same bytes: they earn nobody">copy</span>{{end}}</td><td data-label="score">{{template "refscore" (at $.P .)}}</td><td class="nowrap" data-label="submitted">{{day .Submitted}}</td></tr>{{end}}{{end}}`

var oldRowTemplates = template.Must(template.Must(pages["home"].Clone()).Parse(oldRows))

// TestListRowsMatchTemplates renders the rows of our traces and of the
// mesh's by hand and by the templates they replace, on hostile and
// unusual fields, and wants the same bytes.
func TestListRowsMatchTemplates(t *testing.T) {
	n, err := Load("testdata/node", fixtureNow)
	if err != nil {
		t.Fatal(err)
	}
	idx := prepare(n)
	hostile := []string{"", "plain", `<script>alert("x")</script>`, "a'b\"c&d+e<f>g", "nul\x00byte", "naïve ✓", "bad\xffutf8",
		"javascript:alert(1)", "http://x.org/a b?c=d&e=f#g", "mailto:a@b", "../up/%41 (p) {b} `t` \\ ^|", "x/y:z"}
	var traces []*Trace
	var refs []*Ref
	for i, s := range hostile {
		s2 := hostile[(i+3)%len(hostile)]
		tr := &Trace{Copy: i%2 == 0, Received: make([]*Vote, i%3)}
		tr.Seq, tr.Hash, tr.Status, tr.File, tr.Title, tr.Type = manifest.Seq(i), manifest.Hash(s), manifest.Status(s2), "traces/"+s+".md", s2, s
		if i%2 == 0 {
			tr.Submitted = fixtureNow
		}
		traces = append(traces, tr)
		r := &Ref{Agent: s, Seq: manifest.Seq(i), Title: s2, Status: manifest.Status(s), Copy: i%3 == 0, Seen: i % 4, Passing: i % 2,
			Excerpt: []string{"", s2}[i%2], Disputed: i%3 == 1, Submitted: fixtureNow.Add(time.Duration(i) * time.Hour)}
		switch i % 4 {
		case 1:
			r.Page = s
		case 2:
			r.Read = "mesh/" + s2 + ".html"
		case 3:
			r.URL = s
		}
		if i%2 == 1 {
			r.Ours = &Vote{File: []string{"validations/" + s + ".md", s}[i%4/2], Total: i}
		}
		refs = append(refs, r)
	}
	for _, a := range n.Agents {
		refs = append(refs, &Ref{Agent: a.Name, Title: a.Name, URL: "https://x.org/" + a.Name})
	}
	for _, root := range []string{"", "../", "a b/", "javascript:x/"} {
		v := &view{Root: root, Node: n, idx: idx}
		compareRows(t, "oldTraceRows", &view{Root: root, Node: n, idx: idx, Pager: &pager{Traces: traces}}, traceRows(v, traces))
		compareRows(t, "oldRefRows", rooted{P: v, V: refs}, refRows(v, refs))
	}
}

func compareRows(t *testing.T, name string, data any, got template.HTML) {
	t.Helper()
	var want bytes.Buffer
	if err := oldRowTemplates.ExecuteTemplate(&want, name, data); err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Errorf("%s differ from the template's:\n%s", name, firstDiff(want.String(), string(got)))
	}
}

// pagerTemplate holds templates/parts.html, whose "pager" is the
// specification pagerNav follows.
var pagerTemplate = template.Must(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/parts.html"))

// TestPagerMatchesTemplate renders the navigation of paged lists by hand
// and by parts.html's template, on lists of one, two and many pages
// and on hostile labels and links, and wants the same bytes.
func TestPagerMatchesTemplate(t *testing.T) {
	hostile := []string{"", "plain", `<script>alert("x")</script>`, "a'b\"c&d+e<f>g", "nul\x00byte", "naïve ✓", "bad\xffutf8",
		"javascript:alert(1)", "http://x.org/a b?c=d&e=f#g", "../up/%41 (p) {b} `t` \\ ^|", "x/y:z", "%zz%4"}
	var pagers []*pager
	for _, total := range []int{0, 1, 100, 101, 250, 1000} {
		pagers = append(pagers, tracePages(&Node{Traces: make([]*Trace, total)})...)
	}
	for i, s := range hostile {
		s2 := hostile[(i+5)%len(hostile)]
		pagers = append(pagers, paginate(3*i, 2, s, func(k int) string { return []string{s, s2}[k%2] + "/" + s2 })...)
	}
	for _, p := range pagers {
		var want bytes.Buffer
		if err := pagerTemplate.ExecuteTemplate(&want, "pager", p); err != nil {
			t.Fatal(err)
		}
		if got := string(pagerNav(p)); got != want.String() {
			t.Errorf("pager %q of %d pages differs from the template's:\n%s", p.Path, p.Count, firstDiff(want.String(), got))
		}
	}
}
