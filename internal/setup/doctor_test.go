package setup

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/manifest"
)

var doctorNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

const helloTrace = "# Hello mesh\n\n**Type:** knowledge\n\n## Work\n\nA first trace.\n"

// pages plays GitHub Pages: it serves the node's directory, except the
// paths in rewrite, which it serves with other bytes.
type pages struct {
	dir     string
	rewrite map[string]string
}

func (p *pages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if body, ok := p.rewrite[r.URL.Path]; ok {
		fmt.Fprint(w, body)
		return
	}
	http.FileServer(http.Dir(p.dir)).ServeHTTP(w, r)
}

// testNode is a node that doctor passes: made by Init as the founder of
// its mesh, with one published trace, the workflows, state files, an
// identity filled in and one peer that holds the same FOUNDERS.md.
type testNode struct {
	dir   string
	pages *pages
	url   string
	// peerFounders, when set, is the FOUNDERS.md the peer serves instead
	// of the node's own.
	peerFounders string
}

func newTestNode(t *testing.T) *testNode {
	t.Helper()
	n := &testNode{dir: t.TempDir()}
	n.pages = &pages{dir: n.dir, rewrite: map[string]string{}}
	srv := httptest.NewServer(n.pages)
	t.Cleanup(srv.Close)
	n.url = srv.URL + "/"
	if _, err := Init(Options{Dir: n.dir, Agent: "ada", URL: n.url, Founder: true, Now: initNow, Getenv: noEnv, GitRemote: noRemote}); err != nil {
		t.Fatal(err)
	}
	peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bob/MANIFEST.md":
			fmt.Fprint(w, "# MANIFEST\n\nagent: bob\n")
			return
		case "/bob/FOUNDERS.md":
			if n.peerFounders != "" {
				fmt.Fprint(w, n.peerFounders)
				return
			}
			if data, err := os.ReadFile(filepath.Join(n.dir, "FOUNDERS.md")); err == nil {
				w.Write(data)
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(peer.Close)
	mustWrite(t, filepath.Join(n.dir, "AGENTS.md"), "# name | trace_url | joined\nbob | "+peer.URL+"/bob/ | 2026-02-01\nada | "+n.url+" | 2026-03-01\n")
	mustWrite(t, filepath.Join(n.dir, "IDENTITY.md"), "# IDENTITY\n\nname: ada\njoined: 2026-03-01\nmodel: Claude\nhuman: Ada\nrole: maps the mesh\n")
	mustWrite(t, filepath.Join(n.dir, "traces/001-hello.md"), helloTrace)
	mustWrite(t, filepath.Join(n.dir, "MANIFEST.md"), fmt.Sprintf("# MANIFEST\n\nagent: ada\nurl: %s\nupdated: 2026-03-01T12:00:00Z\nsequence: 1\n\n## Traces\n\n"+
		"| seq | hash | file | type | status | submitted |\n|-----|------|------|------|--------|-----------|\n"+
		"| 1 | %s | traces/001-hello.md | knowledge | pending | 2026-03-01T12:00:00Z |\n", n.url, manifest.HashBytes([]byte(helloTrace))))
	for _, wf := range []string{"heartbeat.yml", "check.yml"} {
		mustWrite(t, filepath.Join(n.dir, ".github/workflows", wf), mustRead(t, filepath.Join("testdata/workflows", wf)))
	}
	mustWrite(t, filepath.Join(n.dir, "mesh-state/polling-cursors.json"), "{\n  \"cursors\": {}\n}\n")
	return n
}

func (n *testNode) doctor(t *testing.T, lastCommit time.Time) []Finding {
	t.Helper()
	return Doctor(context.Background(), DoctorOptions{Dir: n.dir, Now: doctorNow,
		LastCommit: func(context.Context, string) (time.Time, error) { return lastCommit, nil }})
}

func TestDoctorPassesAHealthyNodeServedByPages(t *testing.T) {
	n := newTestNode(t)
	before := snapshot(t, n.dir)
	fs := n.doctor(t, doctorNow.Add(-time.Hour))
	for _, f := range fs {
		if f.Status != StatusOK {
			t.Errorf("%s: %s: %s (fix: %s)", f.Check, f.Status, f.Message, f.Fix)
		}
	}
	for _, check := range []string{"config", "identity", "manifest", "pages", "pages-files", "peers", "standing", "founders", "workflow heartbeat.yml", "workflow check.yml", "state ledger", "activity"} {
		if find(fs, check, StatusOK) == nil {
			t.Errorf("no ok finding for %q", check)
		}
	}
	if after := snapshot(t, n.dir); after != before {
		t.Errorf("doctor changed the node's directory:\n%s\n---\n%s", before, after)
	}
}

func TestDoctorFindsWhatIsBroken(t *testing.T) {
	tests := []struct {
		name       string
		breakIt    func(t *testing.T, n *testNode)
		lastCommit time.Duration // before doctorNow
		check      string
		status     Status
		message    string // a part of the finding's message
		fix        string // a part of its fix
	}{
		{"served MANIFEST differs from the local one", func(t *testing.T, n *testNode) {
			n.pages.rewrite["/MANIFEST.md"] = "# MANIFEST\n\nagent: ada\nsequence: 0\n"
		}, time.Hour, "pages", StatusFail, "the local MANIFEST.md is sha256:", "wait for the Pages deploy"},
		{"Pages not enabled", func(t *testing.T, n *testNode) {
			n.pages.dir = t.TempDir()
		}, time.Hour, "pages", StatusFail, "not_found", "enable GitHub Pages"},
		{"a listed file served with other bytes", func(t *testing.T, n *testNode) {
			n.pages.rewrite["/traces/001-hello.md"] = strings.ReplaceAll(helloTrace, "\n", "\r\n")
		}, time.Hour, "pages-files", StatusFail, "seq 1 traces/001-hello.md: served sha256:", ".nojekyll"},
		{"heartbeat workflow missing", func(t *testing.T, n *testNode) {
			mustRemove(t, filepath.Join(n.dir, ".github/workflows/heartbeat.yml"))
		}, time.Hour, "workflow heartbeat.yml", StatusFail, "cannot read .github/workflows/heartbeat.yml", "template repository"},
		{"heartbeat workflow without a schedule", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, ".github/workflows/heartbeat.yml"), "on:\n  workflow_dispatch:\njobs:\n  a: {}\n")
		}, time.Hour, "workflow heartbeat.yml", StatusFail, "no \"schedule:\" trigger", "restore"},
		{"check workflow running the pull request's own code", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, ".github/workflows/check.yml"), "on:\n  pull_request:\njobs:\n  a: {}\n")
		}, time.Hour, "workflow check.yml", StatusFail, "runs on pull_request", "pull_request_target"},
		{"check workflow checking nothing", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, ".github/workflows/check.yml"), "on: [push]\njobs:\n  a: {}\n")
		}, time.Hour, "workflow check.yml", StatusFail, "no pull_request_target trigger", "pull_request_target"},
		{"check workflow not YAML", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, ".github/workflows/check.yml"), "on: [\n")
		}, time.Hour, "workflow check.yml", StatusFail, "not valid YAML", "restore"},
		{"last commit 61 days old", func(t *testing.T, n *testNode) {}, 61 * 24 * time.Hour,
			"activity", StatusFail, "61 day(s) ago", "gh workflow enable heartbeat.yml"},
		{"last commit 50 days old", func(t *testing.T, n *testNode) {}, 50 * 24 * time.Hour,
			"activity", StatusWarn, "in 10 day(s)", "push a commit"},
		{"corrupt state file", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "mesh-state/ledger.json"), "{\"traces\": {")
		}, time.Hour, "state ledger", StatusFail, "mesh-state/ledger.json:1:12: unreadable state", "git checkout COMMIT -- mesh-state/ledger.json"},
		{"corrupt per-peer ledger file", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "mesh-state/ledger/peer-00e76d08.json"), "{\"traces\": {")
		}, time.Hour, "state ledger", StatusFail, "mesh-state/ledger/peer-00e76d08.json:1:12: unreadable state", "restore mesh-state/ledger/peer-00e76d08.json from history"},
		{"ledger of the wrong shape", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "mesh-state/ledger.json"), "{\"traces\": 7}")
		}, time.Hour, "state ledger", StatusFail, "mesh-state/ledger.json", "git log"},
		{"corrupt queue", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "mesh-state/queue.json"), "{\"items\": [")
		}, time.Hour, "state queue", StatusFail, "mesh-state/queue.json:1:11: unreadable state", "git log"},
		{"corrupt cursors", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "mesh-state/polling-cursors.json"), "[]")
		}, time.Hour, "state polling-cursors", StatusFail, "mesh-state/polling-cursors.json", "move it away"},
		{"corrupt seen hashes of a peer, which a heartbeat reads only when the peer has news", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "mesh-state/polling-cursors/hosts.json"), "{}\n")
			mustWrite(t, filepath.Join(n.dir, "mesh-state/polling-cursors-seen/peer-00e76d08.json"), "{\"url\": ")
		}, time.Hour, "state polling-cursors", StatusFail, "mesh-state/polling-cursors-seen/peer-00e76d08.json", "restore mesh-state/polling-cursors-seen/peer-00e76d08.json from history"},
		{"unreachable peer is a warning", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "AGENTS.md"), "gone | "+n.url+"gone/ | 2026-01-01\n")
		}, time.Hour, "peers", StatusWarn, "peer gone unreachable", "trace_url"},
		{"no FOUNDERS.md: no standing, and how to found or join a mesh", func(t *testing.T, n *testNode) {
			mustRemove(t, filepath.Join(n.dir, "FOUNDERS.md"))
		}, time.Hour, "standing", StatusWarn, "FOUNDERS.md names no founders", "meshnode init --founder"},
		{"no FOUNDERS.md is also a founders warning", func(t *testing.T, n *testNode) {
			mustRemove(t, filepath.Join(n.dir, "FOUNDERS.md"))
		}, time.Hour, "founders", StatusWarn, "no FOUNDERS.md", "copy the mesh's FOUNDERS.md"},
		{"another node founded the mesh: how far from standing, and what to do", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "FOUNDERS.md"), "bob | https://bob.example/\n")
		}, time.Hour, "standing", StatusWarn, "no standing yet: SIGNAL 0 of the 50", "list you in its AGENTS.md"},
		{"a FOUNDERS.md that does not parse fails at its line", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "FOUNDERS.md"), "# FOUNDERS\nbob https://bob.example/\n")
		}, time.Hour, "standing", StatusFail, "FOUNDERS.md:2:", "one 'name | trace_url' line per founder"},
		{"a founder the node does not poll", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "FOUNDERS.md"), "ada | "+n.url+"\ncarol | https://carol.example/\n")
		}, time.Hour, "founders", StatusWarn, "founder carol (https://carol.example/) is not in AGENTS.md", "add the line 'carol | https://carol.example/'"},
		{"a peer with another FOUNDERS.md computes another mesh's SIGNAL", func(t *testing.T, n *testNode) {
			n.peerFounders = "bob | https://bob.example/\n"
		}, time.Hour, "founders", StatusWarn, "peer bob holds another FOUNDERS.md", "copy it byte for byte"},
		{"a peer whose FOUNDERS.md names rules this node does not implement", func(t *testing.T, n *testNode) {
			n.peerFounders = "rules: mesh-2099-1\nbob | https://bob.example/\n"
		}, time.Hour, "rules", StatusWarn, "peer bob computes with rule set mesh-2099-1, which this meshnode does not implement", "changing the rules line"},
		{"a FOUNDERS.md naming rules this node does not implement fails standing", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "FOUNDERS.md"), "rules: mesh-2099-1\nada | "+n.url+"\n")
		}, time.Hour, "standing", StatusFail, `names rule set "mesh-2099-1"`, "publishes every trace as pending"},
		{"Pages serves another FOUNDERS.md than the local one", func(t *testing.T, n *testNode) {
			n.pages.rewrite["/FOUNDERS.md"] = "old | https://old.example/\n"
		}, time.Hour, "founders", StatusWarn, "Pages serves another FOUNDERS.md", "commit and push FOUNDERS.md"},
		{"no peers", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "AGENTS.md"), "# name | trace_url | joined\n")
		}, time.Hour, "peers", StatusWarn, "lists no peers", "add a line"},
		{"identity left as placeholders", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "IDENTITY.md"), string(identityMarkdown(identity{Name: "ada", Joined: initNow})))
		}, time.Hour, "identity", StatusWarn, "model, human, role unfilled", "edit IDENTITY.md"},
		{"manifest of another agent", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "MANIFEST.md"), string(emptyManifest("bob", n.url, initNow)))
		}, time.Hour, "manifest", StatusWarn, "MANIFEST.md says agent \"bob\"", "meshnode heartbeat"},
		{"no mesh.yaml", func(t *testing.T, n *testNode) {
			mustRemove(t, filepath.Join(n.dir, "mesh.yaml"))
		}, time.Hour, "config", StatusFail, "mesh.yaml: not found", "meshnode init"},
		{"invalid mesh.yaml", func(t *testing.T, n *testNode) {
			mustWrite(t, filepath.Join(n.dir, "mesh.yaml"), "agent: ada\nurl: ftp://x/\n")
		}, time.Hour, "config", StatusFail, "mesh.yaml:2: url: must be an http or https URL", "docs/config.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := newTestNode(t)
			tt.breakIt(t, n)
			fs := n.doctor(t, doctorNow.Add(-tt.lastCommit))
			f := find(fs, tt.check, tt.status)
			if f == nil {
				t.Fatalf("no %s finding for %q in\n%s", tt.status, tt.check, dump(fs))
			}
			if !strings.Contains(f.Message, tt.message) || !strings.Contains(f.Fix, tt.fix) {
				t.Errorf("finding = %+v, want message with %q and fix with %q", *f, tt.message, tt.fix)
			}
			if tt.status == StatusWarn && Failures(fs) != 0 {
				t.Errorf("a warning alone must not fail the node:\n%s", dump(fs))
			}
		})
	}
}

func TestDoctorChecksThePagesURLOverride(t *testing.T) {
	n := newTestNode(t)
	mustWrite(t, filepath.Join(n.dir, "mesh.yaml"), "agent: ada\nurl: https://ada.github.io/node/\n")
	mustWrite(t, filepath.Join(n.dir, "MANIFEST.md"), strings.Replace(mustRead(t, filepath.Join(n.dir, "MANIFEST.md")), n.url, "https://ada.github.io/node/", 1))
	fs := Doctor(context.Background(), DoctorOptions{Dir: n.dir, Now: doctorNow, PagesURL: n.url,
		LastCommit: func(context.Context, string) (time.Time, error) { return doctorNow, nil },
		Fetcher:    newLoopbackFetcher()})
	if find(fs, "pages", StatusOK) == nil || find(fs, "pages-files", StatusOK) == nil {
		t.Errorf("pages not checked at the override URL:\n%s", dump(fs))
	}
}

func TestDoctorWarnsWhenTheLastCommitCannotBeRead(t *testing.T) {
	n := newTestNode(t)
	fs := Doctor(context.Background(), DoctorOptions{Dir: n.dir, Now: doctorNow,
		LastCommit: func(context.Context, string) (time.Time, error) {
			return time.Time{}, errors.New("not a git repository")
		}})
	if f := find(fs, "activity", StatusWarn); f == nil || !strings.Contains(f.Message, "not a git repository") {
		t.Errorf("want an activity warning naming the git error:\n%s", dump(fs))
	}
}

func TestLastCommitReadsGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=2026-02-03T04:05:06Z", "GIT_AUTHOR_DATE=2026-02-03T04:05:06Z",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, err := LastCommit(context.Background(), dir); err == nil {
		t.Errorf("LastCommit outside a repository: want an error")
	}
	run("init", "-q")
	run("remote", "add", "origin", "git@github.com:ada/ada-node.git")
	run("commit", "-q", "--allow-empty", "-m", "first")
	got, err := LastCommit(context.Background(), dir)
	if err != nil || !got.Equal(time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)) {
		t.Errorf("LastCommit = %v, %v; want 2026-02-03T04:05:06Z", got, err)
	}
	if remote, err := OriginRemote(dir); err != nil || remote != "git@github.com:ada/ada-node.git" {
		t.Errorf("OriginRemote = %q, %v", remote, err)
	}
}

func find(fs []Finding, check string, status Status) *Finding {
	for i := range fs {
		if fs[i].Check == check && fs[i].Status == status {
			return &fs[i]
		}
	}
	return nil
}

func dump(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %s: %s (fix: %s)\n", f.Status, f.Check, f.Message, f.Fix)
	}
	return b.String()
}

func mustRemove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// snapshot lists every file under dir with its size and contents' hash.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		fmt.Fprintf(&b, "%s %s\n", strings.TrimPrefix(path, dir), manifest.HashBytes(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func newLoopbackFetcher() Fetcher {
	return fetch.New(fetch.Options{AllowPrivate: true, IgnoreRobots: true})
}

// TestDoctorAcceptsTheShippedWorkflows checks the workflows a fork gets
// from this repository against doctor's rules, so the two cannot drift.
func TestDoctorAcceptsTheShippedWorkflows(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, WorkflowDir, HeartbeatWorkflow)); err != nil {
		t.Skipf("no shipped workflows: %v", err)
	}
	for _, f := range checkWorkflows(root) {
		if f.Status != StatusOK {
			t.Errorf("%s: %s: %s", f.Check, f.Status, f.Message)
		}
	}
	if note := keepaliveNote(root); !strings.Contains(note, "has a keepalive") {
		t.Errorf("keepaliveNote = %q, want the shipped heartbeat's keepalive seen", note)
	}
}

// TestDoctorReadsPeersOnlyUnderTheirBase: a peer whose MANIFEST.md and
// FOUNDERS.md redirect to another path of its host is not followed there:
// doctor reads a peer by the rule the heartbeat follows, under its base.
func TestDoctorReadsPeersOnlyUnderTheirBase(t *testing.T) {
	n := newTestNode(t)
	var mu sync.Mutex
	outside := 0
	founders := mustRead(t, filepath.Join(n.dir, "FOUNDERS.md"))
	eve := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/eve/"); ok {
			http.Redirect(w, r, "/outside/"+rest, http.StatusFound)
			return
		}
		mu.Lock()
		outside++
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/FOUNDERS.md") {
			fmt.Fprint(w, founders)
			return
		}
		fmt.Fprint(w, "# MANIFEST\n\nagent: eve\n")
	}))
	t.Cleanup(eve.Close)
	agents := mustRead(t, filepath.Join(n.dir, "AGENTS.md"))
	mustWrite(t, filepath.Join(n.dir, "AGENTS.md"), agents+"eve | "+eve.URL+"/eve/ | 2026-03-02\n")

	fs := Doctor(context.Background(), DoctorOptions{Dir: n.dir, Now: doctorNow,
		LastCommit: func(context.Context, string) (time.Time, error) { return doctorNow, nil },
		Fetcher:    newLoopbackFetcher()})
	mu.Lock()
	defer mu.Unlock()
	if outside != 0 {
		t.Errorf("doctor asked %d times for a path outside the peer's base, want never", outside)
	}
	if f := find(fs, "peers", StatusWarn); f == nil || !strings.Contains(dump(fs), "eve") {
		t.Errorf("want the redirecting peer reported:\n%s", dump(fs))
	}
}
