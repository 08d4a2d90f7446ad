package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/slowtest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestQuietHeartbeatReadsNoHistoryAndEqualsTheFullOne builds a node's
// history in a git checkout (a heartbeat that fetches and validates a
// peer's trace, then one that finds nothing new and keeps the derived
// state), then runs a heartbeat that finds nothing new and counts what
// it reads: none of the published files, the ledger or the copies (the
// code before derived state read them all at every heartbeat). A copy of
// the node without its derived state runs the same heartbeat on the whole
// history: the two give the same summary and the same files.
func TestQuietHeartbeatReadsNoHistoryAndEqualsTheFullOne(t *testing.T) {
	p := newQuietPeer(t)
	dir := quietNode(t, p)
	quiet, reads := beatReadingNoHistory(t, dir, now.Add(time.Hour), "a heartbeat that found nothing new")
	if reads[node.CursorsFile] != 1 {
		t.Errorf("cursors read %d times, want once", reads[node.CursorsFile])
	}
	if quiet.sum.Changed {
		t.Error("a heartbeat that found nothing new changed files")
	}
	if out, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--", ".", ":(exclude,glob)mesh-state/*.lock").Output(); err != nil || len(out) > 0 {
		t.Errorf("a heartbeat that found nothing new left to commit: %s %v", out, err)
	}
	full := fullCopy(t, dir)
	wantSame(t, dir, full, quiet, now.Add(time.Hour))
}

// TestQuietHeartbeatReadsNoArchivePage archives our MANIFEST.md's rows
// one a page, so the node has archive pages, and runs a heartbeat that
// finds nothing new: it reads none of them (they are history, read with
// the rest when a heartbeat needs it; before, every open parsed them, nine
// pages of 5,000 rows after three years at 50 validations a day) and
// gives what a heartbeat reading the history gives.
func TestQuietHeartbeatReadsNoArchivePage(t *testing.T) {
	beatWindow = 1
	t.Cleanup(func() { beatWindow = 0 })
	p := newQuietPeer(t)
	dir := quietNode(t, p)
	pages, err := filepath.Glob(filepath.Join(dir, node.ArchiveDir, "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("archive pages: %v, %v; want some", pages, err)
	}
	quiet, _ := beatReadingNoHistory(t, dir, now.Add(time.Hour), "a heartbeat that found nothing new")
	wantSame(t, dir, fullCopy(t, dir), quiet, now.Add(time.Hour))
}

// TestEachChangeOfHistoryIsComputedInFull changes, after the derived state
// was kept, one input of what a heartbeat computes from history, and runs
// the next heartbeat: it must read the history (the ledger) and give what
// a heartbeat on a copy without derived state gives, summary, error and
// files alike. Each case builds a node in git (about half a second);
// README's quick test command runs the first three.
func TestEachChangeOfHistoryIsComputedInFull(t *testing.T) {
	for i, tc := range []struct {
		name   string
		change func(t *testing.T, dir string, p *quietPeer)
	}{
		{"a validation merged by a pull request", func(t *testing.T, dir string, _ *quietPeer) {
			writeText(t, dir, "validations/val-000000000000.md", "# VALIDATION\n\nvalidator: tester\nresult: pass\n")
			gitCommit(t, dir)
		}},
		{"our trace edited in place, same size, not committed", func(t *testing.T, dir string, _ *quietPeer) {
			writeText(t, dir, "traces/first.md", strings.Replace(ownTrace, "first", "FIRST", 1))
		}},
		{"a file git ignores in validations/", func(t *testing.T, dir string, _ *quietPeer) {
			writeText(t, dir, ".gitignore", "*.tmp.md\n")
			gitCommit(t, dir)
			writeText(t, dir, "validations/x.tmp.md", "# VALIDATION\n")
		}},
		{"a peer publishes a new trace", func(t *testing.T, _ string, p *quietPeer) {
			p.publish("traces/second.md", strings.Replace(peerTrace, "held", "broke", 1))
		}},
		{"FOUNDERS.md no longer names the node", func(t *testing.T, dir string, _ *quietPeer) {
			writeText(t, dir, node.FoundersFile, "someone | http://127.0.0.1:1/someone/\n")
			gitCommit(t, dir)
		}},
		{"mesh.yaml changes the scorer", func(t *testing.T, dir string, p *quietPeer) {
			writeText(t, dir, node.ConfigFile, "agent: tester\nurl: http://127.0.0.1:1/tester/\nallow_private_addresses: true\nscorer: manual\n")
			gitCommit(t, dir)
		}},
		{"a ledger file committed with other bytes (a run killed after its save)", func(t *testing.T, dir string, _ *quietPeer) {
			path := filepath.Join(dir, filepath.FromSlash(node.LedgerFile))
			_, files, err := statefile.Read(path)
			if err != nil || len(files) == 0 {
				t.Fatalf("no ledger file: %v", err)
			}
			edited := map[string][]byte{}
			for key, data := range files {
				edited[key] = []byte(strings.Replace(string(data), `"title": "Retry budgets that held"`, `"title": "Retry budgets"`, 1))
			}
			if _, err := statefile.WriteSome(path, edited, nil); err != nil {
				t.Fatal(err)
			}
			gitCommit(t, dir)
		}},
		{"the derived state torn by a crash", func(t *testing.T, dir string, _ *quietPeer) {
			writeText(t, dir, node.DerivedFile, `{"version": 1, "inpu`)
		}},
		{"a heartbeat with news left uncommitted, then its validation edited in place, same size", func(t *testing.T, dir string, p *quietPeer) {
			rel := newsUncommitted(t, dir, p)
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			writeText(t, dir, rel, strings.Replace(string(data), "tester", "TESTER", 1))
		}},
		{"a heartbeat with news left uncommitted, then its validation removed", func(t *testing.T, dir string, p *quietPeer) {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(newsUncommitted(t, dir, p)))); err != nil {
				t.Fatal(err)
			}
		}},
		{"a quarter of the ledger due to be sealed", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if i >= 3 && !slowtest.Enabled() {
				t.Skipf("set %s=1 to run every change", slowtest.Env)
			}
			p := newQuietPeer(t)
			dir := quietNode(t, p)
			at := now.Add(time.Hour)
			if tc.change != nil {
				tc.change(t, dir, p)
			} else {
				at = now.AddDate(0, 6, 0) // past the quarter sealed 90 days after it ends
			}
			full := fullCopy(t, dir)
			sum, reads := beatCounting(t, dir, at)
			if reads[node.LedgerFile] == 0 {
				t.Errorf("the history was not read: %v", reads)
			}
			wantSame(t, dir, full, sum, at)
		})
	}
}

// newsUncommitted has p publish a trace and runs a heartbeat, which
// validates it and keeps its derived state, all left uncommitted; it
// returns the new validation's path.
func newsUncommitted(t *testing.T, dir string, p *quietPeer) string {
	t.Helper()
	p.publish("traces/second.md", strings.Replace(peerTrace, "held", "broke", 1))
	if sum := mustBeat(t, dir, now.Add(10*time.Minute)); sum.ValidationsPublished != 1 {
		t.Fatalf("heartbeat with news published %d validations, want 1", sum.ValidationsPublished)
	}
	out, err := exec.Command("git", "-C", dir, "ls-files", "--others", "--", node.ValidationsDir).Output()
	if err != nil || len(strings.Fields(string(out))) != 1 {
		t.Fatalf("new validations: %q, %v; want one", out, err)
	}
	return strings.TrimSpace(string(out))
}

// quietPeer serves one agent whose MANIFEST.md can grow.
type quietPeer struct {
	base  string
	mu    sync.Mutex
	files map[string]string
	rows  []string
	// served, when set, is called at each request, before the answer.
	served func()
}

func newQuietPeer(t *testing.T) *quietPeer {
	t.Helper()
	p := &quietPeer{files: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(srv.Close)
	p.base = srv.URL + "/ada/"
	p.publish("traces/retry.md", peerTrace)
	return p
}

func (p *quietPeer) publish(file, body string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files[file] = body
	p.rows = append(p.rows, fmt.Sprintf("| %d | %s | %s | knowledge | pending | 2026-03-14T10:00:00Z |\n", len(p.rows)+1, manifest.HashBytes([]byte(body)), file))
}

func (p *quietPeer) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.served != nil {
		p.served()
	}
	file := strings.TrimPrefix(r.URL.Path, "/ada/")
	if file == node.ManifestFile {
		fmt.Fprintf(w, "# MANIFEST\n\nagent: ada\nurl: %s\nupdated: 2026-03-14T10:00:00Z\nsequence: %d\n\n| seq | hash | file | type | status | submitted |\n|---|---|---|---|---|---|\n%s",
			p.base, len(p.rows), strings.Join(p.rows, ""))
		return
	}
	body, ok := p.files[file]
	if !ok {
		http.NotFound(w, r)
		return
	}
	io.WriteString(w, body)
}

// quietNode is a founder node polling p, in a git checkout, after a
// heartbeat that fetched and validated p's trace and kept its derived
// state, committed.
func quietNode(t *testing.T, p *quietPeer) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := newNode(t, p.base)
	gitRun(t, dir, "init", "-q")
	gitCommit(t, dir)
	if sum := mustBeat(t, dir, now); sum.ValidationsPublished != 1 {
		t.Fatalf("first heartbeat published %d validations, want 1", sum.ValidationsPublished)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(node.DerivedFile))); err != nil {
		t.Fatalf("a heartbeat with news kept no derived state: %v", err)
	}
	gitCommit(t, dir)
	return dir
}

// history says whether rel is one of the files a quiet heartbeat leaves
// unread: a published file, an archive page, the ledger or the copies.
func history(rel string) bool {
	for _, d := range append(node.PublishedDirs, node.ArchiveDir) {
		if strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return rel == node.LedgerFile || rel == node.CopiesFile
}

func beatAt(t *testing.T, dir string, at time.Time) (*report.Summary, error) {
	t.Helper()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return heartbeat.Run(context.Background(), heartbeat.Options{
		Dir: dir, Config: cfg, Now: func() time.Time { return at },
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
		ManifestWindow: beatWindow, ManifestChunk: beatWindow,
	})
}

// beatWindow, when set, is the window and the chunk of our MANIFEST.md
// for beatAt's heartbeats (publish.Options): 0 gives the defaults.
var beatWindow int

func mustBeat(t *testing.T, dir string, at time.Time) *report.Summary {
	t.Helper()
	sum, err := beatAt(t, dir, at)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// outcome is what a heartbeat returned.
type outcome struct {
	sum *report.Summary
	err error
}

// beatCounting runs a heartbeat and counts the node files it reads.
func beatCounting(t *testing.T, dir string, at time.Time) (outcome, map[string]int) {
	t.Helper()
	var mu sync.Mutex
	reads := map[string]int{}
	reset := node.SetHooks(func(rel string) {
		mu.Lock()
		reads[rel]++
		mu.Unlock()
	}, nil)
	sum, err := beatAt(t, dir, at)
	reset()
	return outcome{sum, err}, reads
}

// beatReadingNoHistory runs a heartbeat as beatCounting does, fails the
// test if the heartbeat fails, and reports each file of the history it
// read, naming the heartbeat what.
func beatReadingNoHistory(t *testing.T, dir string, at time.Time, what string) (outcome, map[string]int) {
	t.Helper()
	got, reads := beatCounting(t, dir, at)
	if got.err != nil {
		t.Fatal(got.err)
	}
	for rel, c := range reads {
		if history(rel) {
			t.Errorf("%s read %s %d time(s)", what, rel, c)
		}
	}
	return got, reads
}

// fullCopy copies the node, git checkout included, without its derived
// state: a heartbeat there computes everything from the history.
func fullCopy(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "full")
	if out, err := exec.Command("cp", "-a", dir, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	if err := os.Remove(filepath.Join(dst, filepath.FromSlash(node.DerivedFile))); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return dst
}

// wantSame runs the heartbeat at at on full and compares it with got, the
// outcome of the same heartbeat on dir: summary (but for timings), error
// and every file of the node (but the derived state and the lock).
func wantSame(t *testing.T, dir, full string, got outcome, at time.Time) {
	t.Helper()
	sum, err := beatAt(t, full, at)
	if fmt.Sprint(err) != fmt.Sprint(got.err) {
		t.Fatalf("error: %v, the full computation's %v", got.err, err)
	}
	if a, b := summaryJSON(t, got.sum), summaryJSON(t, sum); a != b {
		t.Errorf("summary:\n%s\nthe full computation's:\n%s", a, b)
	}
	a, b := nodeFiles(t, dir), nodeFiles(t, full)
	for rel, data := range b {
		if a[rel] != data {
			t.Errorf("%s differs from the full computation's:\n%q\n%q", rel, a[rel], data)
		}
	}
	for rel := range a {
		if _, ok := b[rel]; !ok {
			t.Errorf("%s written, not by the full computation", rel)
		}
	}
}

func summaryJSON(t *testing.T, s *report.Summary) string {
	t.Helper()
	if s == nil {
		return "null"
	}
	c := *s
	// Changed differs by the derived state alone, which the full
	// computation writes anew.
	c.PollLatencySeconds, c.BackoffSeconds, c.Changed = 0, 0, false
	data, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// nodeFiles reads every file of the node but its git directory, the
// derived state and the lock files.
func nodeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == node.DerivedFile || strings.HasSuffix(rel, ".lock") {
			return nil
		}
		data, err := os.ReadFile(p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeText(t *testing.T, dir, rel, data string) {
	t.Helper()
	writeFile(t, dir, rel, []byte(data))
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
}

func gitCommit(t *testing.T, dir string) {
	t.Helper()
	gitRun(t, dir, "add", "-A", "--", ".", ":(exclude,glob)mesh-state/*.lock")
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c", "--allow-empty")
}
