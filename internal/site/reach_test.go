package site

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// maxClicks is how far from the home page every trace and validation must
// be (issue 22): home, a list, a page of it, the row's link.
const maxClicks = 4

// many is more rows than three pages of a paged list hold.
const many = 3*perPage + 7

// manyNode is a node of count traces of its own, count traces of the
// agents peers (in turn) and count validations it gave of theirs.
func manyNode(count int, peers ...string) *Node {
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	n := &Node{Agent: "fern", Now: day.AddDate(0, 1, 0)}
	for i := 1; i <= count; i++ {
		at := day.Add(time.Duration(i) * time.Minute)
		n.Traces = append([]*Trace{{Entry: manifest.Entry{Seq: manifest.Seq(i), File: fmt.Sprintf("traces/t%03d.md", i), Title: fmt.Sprint("own ", i),
			Hash: manifest.Hash(fmt.Sprintf("sha256:%064d", i)), Submitted: at}, Body: []byte("Words of a trace.\n\n```go\nx := 1 // one\n```\n")}}, n.Traces...)
		agent := peers[i%len(peers)]
		n.Others = append(n.Others, &Ref{Agent: agent, Seq: manifest.Seq(i), Title: fmt.Sprint(agent, " ", i),
			Hash: manifest.Hash(fmt.Sprintf("sha256:%064d", 1000+i)), URL: fmt.Sprintf("https://%s.example.org/traces/%d.md", agent, i), Submitted: at})
		n.Given = append([]*Vote{{Validator: "fern", Agent: agent, TraceHash: manifest.Hash(fmt.Sprintf("sha256:%064d", 1000+i)),
			Result: "pass", Total: 20, ValidatedAt: at, Seq: manifest.Seq(2000 + i), File: fmt.Sprintf("validations/val-%012d.md", i)}}, n.Given...)
	}
	return n
}

// Every trace of ours, every trace of the mesh seen and every validation we
// gave is reachable from the home page by following links, in at most
// maxClicks clicks, however many there are.
func TestEveryTraceAndValidationIsWithinFourClicksOfHome(t *testing.T) {
	n := manyNode(many, "ada", "bob")
	clicks := clicksFromHome(t, n)
	var far []string
	check := func(target string) {
		if c, ok := clicks[target]; !ok || c > maxClicks {
			far = append(far, fmt.Sprintf("%s (%d clicks)", target, c))
		}
	}
	for _, tr := range n.Traces {
		check(pagePath(tr.File))
	}
	for _, r := range n.Others {
		check(r.URL)
	}
	for _, v := range n.Given {
		check(v.File)
	}
	if len(far) > 0 {
		t.Errorf("%d of %d traces and validations are not within %d clicks of home, e.g. %v", len(far), 3*many, maxClicks, far[:min(5, len(far))])
	}
}

var hrefRE = regexp.MustCompile(`href="([^"]+)"`)

// clicksFromHome renders every page of n's site and walks its links from
// index.html, breadth first: the fewest clicks that reach each link's
// target, a site path or an external URL.
func clicksFromHome(t *testing.T, n *Node) map[string]int {
	t.Helper()
	pages := map[string]string{}
	for _, o := range siteOutputs(n) {
		if strings.HasSuffix(o.Path, ".html") {
			b, err := o.Render(new(bytes.Buffer))
			if err != nil {
				t.Fatalf("render %s: %v", o.Path, err)
			}
			pages[o.Path] = string(b)
		}
	}
	site, _ := url.Parse("https://site.test/")
	clicks := map[string]int{"index.html": 0}
	queue := []string{"index.html"}
	for len(queue) > 0 {
		page := queue[0]
		queue = queue[1:]
		base := site.ResolveReference(&url.URL{Path: page})
		for _, m := range hrefRE.FindAllStringSubmatch(pages[page], -1) {
			u, err := base.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
			if err != nil {
				continue
			}
			target := u.String()
			if u.Host == site.Host {
				target = strings.TrimPrefix(u.Path, "/")
			}
			if _, seen := clicks[target]; seen {
				continue
			}
			clicks[target] = clicks[page] + 1
			if _, ok := pages[target]; ok {
				queue = append(queue, target)
			}
		}
	}
	return clicks
}

// TestAgentPagesShowTheNewestAndLinkTheRest: an agent's page lists only
// its 15 newest traces and 20 newest validations given, so that it stays
// a few screens high on a phone (on the caught-up node our own was
// 20,688 px at 50 and 100, and is 5,151 px at 15 and 20), and links the
// paged lists that hold every one.
func TestAgentPagesShowTheNewestAndLinkTheRest(t *testing.T) {
	n := manyNode(many, "ada")
	pages := map[string]string{}
	for _, o := range siteOutputs(n) {
		if strings.HasPrefix(o.Path, agentsDir+"/") && strings.HasSuffix(o.Path, ".html") {
			b, err := o.Render(new(bytes.Buffer))
			if err != nil {
				t.Fatal(err)
			}
			pages[o.Path] = string(b)
		}
	}
	for _, tc := range []struct {
		page, row string
		rows      int
		links     []string
	}{
		{"agents/fern.html", `<a class="title" href="../traces/t`, 15, []string{`href="../traces/index.html">All 307 traces`}},
		{"agents/fern.html", `<td class="num" data-label="total"><a href="../validations/val-`, 20, []string{`href="../validations.html">Validations</a>`}},
		{"agents/ada.html", `<td data-label="agent">`, 15, []string{`href="../mesh/index.html">Traces of the mesh</a>`}},
	} {
		page, ok := pages[tc.page]
		if !ok {
			t.Fatalf("no page %s among %d", tc.page, len(pages))
		}
		if got := strings.Count(page, tc.row); got != tc.rows {
			t.Errorf("%s: %d rows of %q, want %d", tc.page, got, tc.row, tc.rows)
		}
		for _, l := range tc.links {
			if !strings.Contains(page, l) {
				t.Errorf("%s does not link the whole list: no %s", tc.page, l)
			}
		}
	}
}
