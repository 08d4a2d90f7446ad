package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/setup"
	"github.com/meshnode/meshnode/internal/signal"
)

// adasTraces are the three traces ada publishes in most tests: two that
// the heuristic passes and one it fails.
var adasTraces = []string{"001-retry-ladder.md", "002-gap-cursor.md", "003-tiny.md"}

func TestStandingGatesValidation(t *testing.T) {
	tests := []struct {
		name       string
		founders   []string // nodes configured as founders
		validates  bool
		standing   string // substring of the summary's standing line
		next       string // substring of its next step
		waitReason string
	}{
		{name: "no FOUNDERS.md: nobody has standing, and the summary says how to found or join", founders: nil,
			standing: "FOUNDERS.md names no founders", next: "init --founder", waitReason: "no standing yet"},
		{name: "another node founded the mesh: bob must earn SIGNAL 50", founders: []string{"ada"},
			standing: "no standing yet: SIGNAL 0 of the 50", next: "founders: ada", waitReason: "no standing yet"},
		{name: "a founder validates at once", founders: []string{"bob"}, validates: true, standing: "a founder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMesh(t, "ada", "bob")
			for _, n := range []string{"ada", "bob"} {
				extra := gated
				for _, f := range tt.founders {
					if f == n {
						extra = founding
					}
				}
				m.configure(n, extra)
			}
			m.node("ada").addTraces(t, "ada", adasTraces...)
			m.beat("ada")

			sum := m.beat("bob")

			if !strings.Contains(sum.Standing, tt.standing) || !strings.Contains(sum.StandingNext, tt.next) {
				t.Errorf("standing %q, next %q; want them to say %q and %q", sum.Standing, sum.StandingNext, tt.standing, tt.next)
			}
			vals := readValidations(t, m.node("bob").dir)
			if tt.validates {
				if len(vals) != 3 || sum.ValidationsPublished != 3 || sum.Waiting != 0 || sum.StandingNext != "" {
					t.Errorf("validations on disk %d, published %d, waiting %d, next %q; want 3, 3, 0, none", len(vals), sum.ValidationsPublished, sum.Waiting, sum.StandingNext)
				}
				return
			}
			if len(vals) != 0 || sum.ValidationsPublished != 0 {
				t.Errorf("without standing: %d validations written, %d published; want none", len(vals), sum.ValidationsPublished)
			}
			if sum.Waiting != 3 || !strings.Contains(sum.WaitingReason, tt.waitReason) {
				t.Errorf("waiting %d (%q); want 3 waiting, reason containing %q", sum.Waiting, sum.WaitingReason, tt.waitReason)
			}
			for _, it := range queueItems(t, m.node("bob").dir) {
				if it.Status != queue.StatusQueued {
					t.Errorf("queue item %s is %s; without standing it must stay queued", it.ID, it.Status)
				}
			}
		})
	}
}

// alwaysPass is a scoring command that passes every trace (20 of 30), so
// that the tests of standing do not depend on the heuristic's verdicts.
const alwaysPass = `scorer: command
scorer_command: ["/bin/sh", "-c", "cat >/dev/null; echo '{\"scores\":{\"substance\":4,\"uniqueness\":3,\"specificity\":4,\"actionability\":3,\"structure\":3,\"freshness\":3},\"notes\":\"fine\"}'"]
`

// capabilityRocks writes n capability rock traces of the node's own: five
// validated by agents with standing bring SIGNAL to 50.
func capabilityRocks(t testing.TB, n *testNode, count int) {
	t.Helper()
	for i := 1; i <= count; i++ {
		writeFile(t, n.dir, fmt.Sprintf("traces/%03d-%s-tool.md", i, n.name), fmt.Sprintf(
			"# Trace: %s's tool number %d\n\n**Agent:** %s\n**Date:** 2026-03-14\n**Type:** capability\n**Category:** rock\n\n"+
				"## Work\n\nTool %d of %s, measured.\n\n## Evidence\n\nRun %d.\n", n.name, i, n.name, i, n.name, i))
	}
}

// TestFreshMeshReachesStandingEverywhere is the bootstrap of a new mesh
// made of fresh nodes, set up as the README says: ada runs init --founder
// and names bob a second founder; bob and cyd run init and copy FOUNDERS.md
// from ada's URL; each lists the others in AGENTS.md and publishes five
// capability rocks. Within a few heartbeats ada and bob validate cyd's
// traces, its SIGNAL reaches 50 on two founders' passes, and every node
// publishes validations. A scorer that passes every trace keeps
// this test about standing alone.
func TestFreshMeshReachesStandingEverywhere(t *testing.T) {
	m := bootstrapMesh(t, alwaysPass, func(t *testing.T, n *testNode) { capabilityRocks(t, n, 5) })
	reachStanding(t, m)
}

// realisticTraces are what each node of TestFreshMeshReachesStandingWithTheHeuristic
// publishes: measured work the heuristic passes, five capability rocks
// each for bob and cyd (SIGNAL 50 once ada validates them), and the thin
// notes real nodes also publish, which it fails.
var realisticTraces = map[string][]string{
	"ada": adasTraces,
	"bob": {"001-bob-intro.md", "002-manifest-diff-tool.md", "003-robots-cache.md", "004-sha-verify-batch.md", "005-backoff-table.md", "006-site-build-time.md"},
	"cyd": {"001-scoring-rubric.md", "002-thin.md", "003-scorer-latency.md", "004-fingerprint-dupes.md", "005-pages-deploy-skip.md", "006-clock-skew.md", "007-validation-lag.md"},
}

// failingTraces are those of realisticTraces the heuristic fails.
var failingTraces = []string{"ada/003-tiny.md", "bob/001-bob-intro.md", "cyd/002-thin.md"}

// TestFreshMeshReachesStandingWithTheHeuristic is the same bootstrap with
// the scorer a fork gets, mesh.yaml as init writes it (the default
// heuristic), and traces written as a person would: a fresh mesh reaches
// standing everywhere with the heuristic's own verdicts, the thin notes
// failed and counting for nothing.
func TestFreshMeshReachesStandingWithTheHeuristic(t *testing.T) {
	m := bootstrapMesh(t, "", func(t *testing.T, n *testNode) { n.addTraces(t, n.name, realisticTraces[n.name]...) })
	reports := reachStanding(t, m)

	failing := map[string]bool{}
	for _, f := range failingTraces {
		failing[f] = true
	}
	for _, tr := range reports[0].Traces {
		file := tr.Agent + "/" + tr.URL[strings.LastIndex(tr.URL, "/")+1:]
		if tr.Seen == 0 {
			t.Errorf("%s was judged by nobody with standing", file)
			continue
		}
		if passed := tr.Passing > 0; passed == failing[file] {
			t.Errorf("%s: %d of %d validators with standing passed it; the heuristic should have %s it", file, tr.Passing, tr.Seen,
				map[bool]string{true: "failed", false: "passed"}[failing[file]])
		}
	}
	if got, want := len(reports[0].Traces), len(realisticTraces["ada"])+len(realisticTraces["bob"])+len(realisticTraces["cyd"]); got != want {
		t.Errorf("ada's report holds %d traces, want %d", got, want)
	}
}

// bootstrapMesh sets up ada, bob and cyd as the README says (ada founds the
// mesh and adds bob's line to its FOUNDERS.md, since the mesh's rules admit
// an agent only on the passes of two agents with standing; the others copy
// it, all list each other), appends scorer to each mesh.yaml, and has
// each publish its traces.
func bootstrapMesh(t *testing.T, scorer string, publish func(*testing.T, *testNode)) *testMesh {
	t.Helper()
	m := newMesh(t, "ada", "bob", "cyd")
	for _, n := range m.nodes {
		if _, err := setup.Init(setup.Options{Dir: n.dir, Agent: n.name, URL: n.url, Founder: n.name == "ada", Now: start}); err != nil {
			t.Fatal(err)
		}
		if n.name == "ada" {
			bob := m.node("bob")
			founders := string(readFileT(t, filepath.Join(n.dir, node.FoundersFile)))
			writeFile(t, n.dir, node.FoundersFile, founders+bob.name+" | "+bob.url+"\n")
		} else {
			writeFile(t, n.dir, node.FoundersFile, string(getURL(t, m.node("ada").url+node.FoundersFile)))
		}
		var agents strings.Builder
		for _, o := range m.nodes {
			if o != n {
				fmt.Fprintf(&agents, "%s | %s | 2026-03-01\n", o.name, o.url)
			}
		}
		writeFile(t, n.dir, node.AgentsFile, agents.String())
		cfg := string(readFileT(t, filepath.Join(n.dir, "mesh.yaml")))
		if !strings.Contains(cfg, "allow_private_addresses: true") {
			t.Fatalf("init did not allow private addresses for a loopback URL:\n%s", cfg)
		}
		writeFile(t, n.dir, "mesh.yaml", cfg+scorer)
		publish(t, n)
	}
	return m
}

// reachStanding runs rounds of heartbeats until every node has published
// a validation, checks that each did so by round 2 and that every node
// computes standing for all three, and returns the nodes' reports.
func reachStanding(t *testing.T, m *testMesh) []signal.Report {
	t.Helper()
	validating := map[string]int{} // node → round it first published a validation
	for round := 1; round <= 4 && len(validating) < len(m.nodes); round++ {
		for _, n := range m.nodes {
			sum := m.beat(n.name)
			if _, ok := validating[n.name]; !ok && sum.ValidationsPublished > 0 {
				validating[n.name] = round
			}
			if round == 1 && n.name == "cyd" && !strings.Contains(sum.StandingNext, "founders: ada, bob") {
				t.Errorf("%s's first heartbeat does not say whom to ask: %q / %q", n.name, sum.Standing, sum.StandingNext)
			}
		}
		m.now = m.now.Add(heartbeatEvery)
	}
	for _, n := range m.nodes {
		r, ok := validating[n.name]
		if !ok {
			sum := m.beat(n.name)
			t.Errorf("%s never published a validation: %s; next: %s", n.name, sum.Standing, sum.StandingNext)
			continue
		}
		t.Logf("%s first published validations in round %d", n.name, r)
	}
	// Round 1 publishes everyone's traces (ada polls the others before
	// they have a MANIFEST); in round 2 ada validates them, and bob and
	// cyd, polling after her, see their SIGNAL reach 50 and validate too.
	for name, r := range validating {
		if r > 2 {
			t.Errorf("%s first validated in round %d, want by round 2", name, r)
		}
	}
	// Let the last validations of round 2 reach every node.
	m.round()

	// Every node computes the same standing from the same public files.
	var reports []signal.Report
	for _, n := range m.nodes {
		in, err := signal.Load(n.dir, n.name, n.url)
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, signal.Compute(in))
	}
	for _, a := range reports[0].Agents {
		if !a.Standing {
			t.Errorf("%s has no standing in ada's report: %+v", a.Agent, a)
		}
	}
	for i, n := range m.nodes {
		self, _ := signal.Self(reports[i], n.url)
		if !self.Standing {
			t.Errorf("%s's own report gives it no standing: %+v", n.name, self)
		}
	}
	return reports
}

// TestSameFilesSameSignalWhateverMeshYAML: nodes holding the same public
// files compute the same SIGNAL, statuses and standing, whatever their
// own mesh.yaml says (docs/decisions.md, Standing). Once a three-node mesh
// has settled, every node has seen every file of the others, and each
// node's settings differ in every way a setting could matter.
func TestSameFilesSameSignalWhateverMeshYAML(t *testing.T) {
	m := newMesh(t, "ada", "bob", "cyd")
	m.configure("ada", gated)
	m.configure("bob", founding+"lease: 30s\n")
	m.configure("cyd", "scorer: manual\ngossip:\n  enabled: false\n")
	m.node("ada").addTraces(t, "ada", adasTraces...)
	m.node("bob").addTraces(t, "bob", "001-bob-intro.md")
	m.node("cyd").addTraces(t, "cyd", "001-scoring-rubric.md", "002-thin.md")
	m.settle(maxRounds)

	var first signal.Report
	for i, n := range m.nodes {
		in, err := signal.Load(n.dir, n.name, n.url)
		if err != nil {
			t.Fatal(err)
		}
		r := signal.Compute(in)
		if i == 0 {
			first = r
			if len(r.Agents) != 3 || len(r.Traces) != 6 {
				t.Fatalf("ada's report holds %d agents and %d traces, want 3 and 6", len(r.Agents), len(r.Traces))
			}
			continue
		}
		if !reflect.DeepEqual(r, first) {
			t.Errorf("%s computed another report from the same files:\n%+v\nada's:\n%+v", n.name, r, first)
		}
	}
}

func queueItems(t testing.TB, dir string) []queue.Item {
	t.Helper()
	items, err := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile))).List()
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// getURL reads a URL of a test node, as a person copying a file would.
func getURL(t testing.TB, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return data
}

func readFileT(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
