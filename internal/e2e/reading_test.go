package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/site"
	"github.com/meshnode/meshnode/internal/slowtest"
)

var (
	rowRE     = regexp.MustCompile(`(?s)<tr><td data-label="trace">(.*?)</tr>`)
	titleRE   = regexp.MustCompile(`<a class="title" href="([^"]+)"( rel="nofollow ugc noopener")?>([^<]+)</a>`)
	excerptRE = regexp.MustCompile(`<p class="excerpt">[^<]+</p>`)
	agentRE   = regexp.MustCompile(`<td data-label="agent"><a href="(\.\./)+agents/[^"]+\.html">[^<]+</a></td>`)
	statusRE  = regexp.MustCompile(`<td data-label="status"><span class="status status-[a-z]+">[a-z]+</span></td>`)
	scoreRE   = regexp.MustCompile(`<td data-label="score">(\d+ of \d+ passed|<span class="muted">none counted</span>)`)
	dateRE    = regexp.MustCompile(`<td class="nowrap" data-label="submitted">\d{4}-\d\d-\d\d</td>`)
)

// TestCaughtUpNodeShowsEveryPeerTraceReadably: on a node caught up with
// the real mesh snapshot, every peer trace's row in the mesh's list has
// its title, agent, date, an excerpt, its status and score, and links a
// page of the site that shows its copy (issue 22, item 1). A heartbeat
// over the snapshot and a build take about 10 s on 2 cores: slow.
func TestCaughtUpNodeShowsEveryPeerTraceReadably(t *testing.T) {
	slowtest.Require(t)
	corpus := corpustest.Dir(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(corpus)))
	t.Cleanup(srv.Close)
	data, err := os.ReadFile(filepath.Join(corpus, "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	agents, _ := roster.Parse(data)
	m := newMesh(t, "ada")
	m.configure("ada", gated)
	dir := m.node("ada").dir
	var b strings.Builder
	b.WriteString("# name | trace_url | joined\n")
	for _, a := range agents {
		if _, err := os.Stat(filepath.Join(corpus, "agents-hosted", a.Name)); err == nil {
			fmt.Fprintf(&b, "%s | %s/agents-hosted/%s/ | 2026-02-01\n", a.Name, srv.URL, a.Name)
		}
	}
	writeFile(t, dir, node.AgentsFile, b.String())
	beatAt(t, dir, m.now)

	l, err := ledger.Load(filepath.Join(dir, node.LedgerFile))
	if err != nil {
		t.Fatal(err)
	}
	verified := 0
	for _, tr := range l.Traces {
		if tr.Verified {
			verified++
		}
	}
	out := filepath.Join(t.TempDir(), "site")
	if _, err := site.Build(context.Background(), site.Options{Dir: dir, Out: out, Now: m.now}); err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob(filepath.Join(out, "mesh", "pages", "*.html"))
	pages = append(pages, filepath.Join(out, "mesh", "index.html"))
	rows := 0
	for _, p := range pages {
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rowRE.FindAllStringSubmatch(string(page), -1) {
			rows++
			checkRow(t, out, p, row[0])
		}
	}
	if rows != verified || verified < 800 {
		t.Errorf("%d rows in the mesh's list, want the %d verified traces of the snapshot", rows, verified)
	}
}

// checkRow checks one row of a page of the mesh's list.
func checkRow(t *testing.T, out, page, row string) {
	t.Helper()
	title := titleRE.FindStringSubmatch(row)
	if title == nil {
		t.Errorf("%s: a row without a linked title: %.300s", filepath.Base(page), row)
		return
	}
	for what, re := range map[string]*regexp.Regexp{"excerpt": excerptRE, "agent": agentRE, "status": statusRE, "score": scoreRE, "date": dateRE} {
		if !re.MatchString(row) {
			t.Errorf("%s: %q has no %s: %.400s", filepath.Base(page), title[3], what, row)
		}
	}
	href := title[1]
	if title[2] != "" || !strings.HasPrefix(strings.TrimLeft(href, "./"), "mesh/") {
		t.Errorf("%q links off the site (%s), not to a page that shows it", title[3], href)
		return
	}
	read, err := os.ReadFile(filepath.Join(filepath.Dir(page), filepath.FromSlash(href)))
	if err != nil {
		t.Errorf("%q: its reading page: %v", title[3], err)
		return
	}
	if !strings.Contains(string(read), `<div class="body">`) || !strings.Contains(string(read), `rel="nofollow ugc noopener"`) {
		t.Errorf("%q: its reading page has no body, or no link to the original", title[3])
	}
}
