package site

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// editJSON rewrites a JSON file of a node copy through edit.
func editJSON(t *testing.T, file string, edit func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func buildDir(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Build(context.Background(), Options{Dir: dir, Out: out, Now: fixtureNow}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGraphLabelsLinkToAgentPages checks that every name in the
// who-validates-whom graph of the home and SIGNAL pages is a link to that
// agent's page, and that the links resolve.
func TestGraphLabelsLinkToAgentPages(t *testing.T) {
	out, _ := buildFixture(t)
	label := regexp.MustCompile(`(?s)<g class="node[^"]*"><circle[^>]*><title>([^:<]*):[^<]*</title></circle>(.*?)</g>`)
	for _, p := range []string{"index.html", "signal.html"} {
		page := readPage(t, out, p)
		nodes := label.FindAllStringSubmatch(page, -1)
		if len(nodes) < 3 {
			t.Fatalf("%s: %d graph nodes, want the fixture's agents", p, len(nodes))
		}
		for _, m := range nodes {
			name := m[1]
			want := fmt.Sprintf(`<a href="agents/%s.html"><text `, name)
			if !strings.HasPrefix(m[2], want) {
				t.Errorf("%s: graph label of %s is %q, want it inside %s", p, name, m[2], want)
			}
			if _, err := os.Stat(filepath.Join(out, "agents", name+".html")); err != nil {
				t.Errorf("%s: %s's page is missing: %v", p, name, err)
			}
		}
	}
}

// TestValidationWithoutTraceHashNamesItsSource checks the agent page of a
// validator whose ledger validation names no trace (no trace_hash, no
// trace_url): it shows the validation's source URL, or "unknown trace",
// never an empty hash, and its date as unknown, never as "never".
func TestValidationWithoutTraceHashNamesItsSource(t *testing.T) {
	dir := copyNode(t)
	editJSON(t, filepath.Join(dir, "mesh-state", "ledger.json"), func(m map[string]any) {
		vs := m["validations"].(map[string]any)
		vs["https://eve.example.org/traces/ "] = map[string]any{
			"validator": "eve", "validator_url": "https://eve.example.org/traces/", "trace_hash": "",
			"result": "pass", "total": 20, "source_url": "https://eve.example.org/traces/validations/val-x.md",
		}
		vs["https://cyd.example.org/traces/ "] = map[string]any{
			"validator": "cyd", "validator_url": "https://cyd.example.org/traces/", "trace_hash": "",
			"result": "fail", "total": 3,
		}
	})
	out := buildDir(t, dir)
	eve, cyd := readPage(t, out, "agents/eve.html"), readPage(t, out, "agents/cyd.html")
	for name, page := range map[string]string{"eve": eve, "cyd": cyd} {
		if strings.Contains(page, `<code class="hash"></code>`) {
			t.Errorf("%s's page shows an empty hash", name)
		}
		if strings.Contains(page, `data-label="when">never<`) {
			t.Errorf(`%s's page dates a validation "never"`, name)
		}
		if !strings.Contains(page, `data-label="when">unknown<`) {
			t.Errorf("%s's page does not say the date is unknown", name)
		}
	}
	if !strings.Contains(eve, `<a href="https://eve.example.org/traces/validations/val-x.md" rel="nofollow ugc noopener">validation file</a> <span class="muted">(unknown trace)</span>`) {
		t.Error("eve's page does not link the validation's source")
	}
	if !strings.Contains(cyd, `<span class="muted">unknown trace</span>`) {
		t.Error(`cyd's page does not say "unknown trace"`)
	}
}

// TestCitationListLinksToPeersAreNofollow checks that the Citations list
// of a trace page marks links to peers' traces as the body's are.
func TestCitationListLinksToPeersAreNofollow(t *testing.T) {
	out, _ := buildFixture(t)
	page := readPage(t, out, "traces/002-citation-graph.html")
	cites := page[strings.Index(page, `<section class="cites">`):]
	links := regexp.MustCompile(`<a href="([^"]*)"([^>]*)>`).FindAllStringSubmatch(cites, -1)
	external := 0
	for _, l := range links {
		if isExternal(l[1]) {
			external++
			if l[2] != ` rel="nofollow ugc noopener"` {
				t.Errorf("citation link to %s has attributes %q", l[1], l[2])
			}
		} else if l[2] != "" {
			t.Errorf("citation link to our own %s has attributes %q", l[1], l[2])
		}
	}
	if external == 0 {
		t.Fatal("the fixture's citations list links to no peer's trace")
	}
}

// TestNotFoundPageHasNavigation checks that 404.html carries the site's
// navigation, by absolute URL (Pages serves it at any depth), and from the
// server's root for a node with no URL.
func TestNotFoundPageHasNavigation(t *testing.T) {
	out, _ := buildFixture(t)
	page := readPage(t, out, "404.html")
	for _, want := range []string{`<nav aria-label="site">`, `href="https://fern.example.org/traces/index.html"`, `href="https://fern.example.org/agents/index.html"`, `href="https://fern.example.org/signal.html"`} {
		if !strings.Contains(page, want) {
			t.Errorf("404.html lacks %s", want)
		}
	}
	n := &Node{Agent: "nourl"}
	b, err := notFound(n, prepare(n))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `href="/traces/index.html"`) || !strings.Contains(string(b), `href="/index.html"`) {
		t.Errorf("404 page of a node without URL does not link from the root:\n%s", b)
	}
}

// TestNeverReachedPeerIsUnreachable checks that a peer polled but never
// reached shows as unreachable, "never reached", not as offline with a
// "last heartbeat never".
func TestNeverReachedPeerIsUnreachable(t *testing.T) {
	dir := copyNode(t)
	editJSON(t, filepath.Join(dir, "mesh-state", "polling-cursors.json"), func(m map[string]any) {
		m["cursors"].(map[string]any)["https://gil.example.org/"] = map[string]any{
			"agent": "gil", "failure_count": 2, "last_polled": "2026-02-26T11:45:00Z",
			"last_error": "dial tcp: connection refused",
		}
	})
	// gil is listed, as a peer the node polls is (node.Snapshot.Known).
	agents, err := os.OpenFile(filepath.Join(dir, "AGENTS.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(agents, "gil | https://gil.example.org/ | 2026-02-20")
	agents.Close()
	out := buildDir(t, dir)
	for _, p := range []string{"peers.html", "index.html", "agents/gil.html"} {
		page := readPage(t, out, p)
		if !strings.Contains(page, `<span class="presence presence-unreachable">unreachable</span> <span class="muted">never reached</span>`) {
			t.Errorf("%s does not show gil as unreachable, never reached", p)
		}
		if strings.Contains(page, "last heartbeat never") {
			t.Errorf(`%s says "last heartbeat never"`, p)
		}
	}
}

// TestTracesListIsPaged builds a node of 250 traces and checks that the
// traces list is three pages of at most perPage rows, newest first,
// chained by newer/older links that resolve; that every trace is listed
// exactly once; and that an unchanged rebuild writes nothing.
func TestTracesListIsPaged(t *testing.T) {
	dir := t.TempDir()
	writeSyntheticNode(t, dir, 250)
	out := filepath.Join(t.TempDir(), "site")
	o := Options{Dir: dir, Out: out, Now: fixtureNow}
	if _, err := Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`<td class="num" data-label="seq">(\d+)</td>`)
	pages := []string{"traces/index.html", "traces/pages/2.html", "traces/pages/3.html"}
	var seqs []string
	for i, p := range pages {
		page := readPage(t, out, p)
		rows := row.FindAllStringSubmatch(page, -1)
		if want := min(perPage, 250-i*perPage); len(rows) != want {
			t.Errorf("%s: %d rows, want %d", p, len(rows), want)
		}
		for _, r := range rows {
			seqs = append(seqs, r[1])
		}
		if !strings.Contains(page, fmt.Sprintf("page %d of 3", i+1)) {
			t.Errorf("%s does not say it is page %d of 3", p, i+1)
		}
		if i > 0 && !strings.Contains(page, `<a rel="prev" href="../../`+pages[i-1]+`">`) {
			t.Errorf("%s does not link the newer page %s", p, pages[i-1])
		}
		if i+1 < len(pages) && !strings.Contains(page, `<a rel="next" href="`+rootOf(p)+pages[i+1]+`">`) {
			t.Errorf("%s does not link the older page %s", p, pages[i+1])
		}
	}
	if _, err := os.Stat(filepath.Join(out, "traces", "pages", "4.html")); err == nil {
		t.Error("a fourth page was written for 250 traces")
	}
	for i, s := range seqs {
		if want := fmt.Sprint(250 - i); s != want {
			t.Fatalf("row %d lists seq %s, want %s (newest first, each once)", i, s, want)
		}
	}
	if len(seqs) != 250 {
		t.Fatalf("%d rows over all pages, want 250", len(seqs))
	}
	for _, b := range brokenLinks(t, out) {
		t.Error(b)
	}
	st, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Written != 0 {
		t.Errorf("unchanged rebuild wrote %d files", st.Written)
	}
}

// TestAgentPageListsOnlyOurNewestValidationsOfItsTraces: a peer we scored
// hundreds of times got a phone page 75,000 px tall; the page now lists the
// newest agentScored and links the full list.
func TestAgentPageListsOnlyOurNewestValidationsOfItsTraces(t *testing.T) {
	dir := copyNode(t)
	val := fmt.Sprintf("# VALIDATION\n\nvalidator: fern\nvalidator_url: https://fern.example.org/\n"+
		"trace_url: https://ada.example.org/traces/001-heartbeat-cost.md\ntrace_hash: sha256:%s\n"+
		"validated_at: 2026-02-26T10:00:00Z\nresult: pass\ntotal_score: 20\n\nscores:\n  substance: 4\n  uniqueness: 3\n"+
		"  specificity: 4\n  actionability: 3\n  structure: 3\n  freshness: 3\n", strings.Repeat("a1", 32))
	if err := os.WriteFile(filepath.Join(dir, "validations", "val-a1a1a1a1a1a1.md"), []byte(val), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { agentScored = n }(agentScored)
	agentScored = 1
	page := readPage(t, buildDir(t, dir), "agents/ada.html")
	if !strings.Contains(page, "2 validations by fern, the 1 newest shown;") {
		t.Fatalf("ada's page does not say only the newest of 2 is shown")
	}
	section := page[strings.Index(page, `<h2 id="scored">`):strings.Index(page, `<h2 id="gave">`)]
	if n := strings.Count(section, "<tr>") - 1; n != 1 { // less the header row
		t.Errorf("ada's page lists %d of our validations, want 1", n)
	}
	if !strings.Contains(section, "001-heartbeat-cost") {
		t.Error("the one listed is not the newest")
	}
}
