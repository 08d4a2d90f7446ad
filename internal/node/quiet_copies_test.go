package node_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/gitpush"
	"github.com/meshnode/meshnode/internal/node"
)

// TestQuietHeartbeatWithUntrackedCopiesStagesNothing: in a fork's
// checkout (the template's .gitignore), after a heartbeat with news
// committed as the workflow commits, the copies are on disk and not in
// git. A heartbeat that finds nothing new then reads no history, asks git
// only its clean check (it stages nothing: the copies are not git's to
// digest) and leaves nothing to commit. Before, the copies were among the
// history's paths, so git found them untracked at every heartbeat and
// staged the whole history into a copy of its index to digest it.
func TestQuietHeartbeatWithUntrackedCopiesStagesNothing(t *testing.T) {
	p := newQuietPeer(t)
	dir := forkWithNews(t, p)
	log := logGit(t)
	quiet, _ := beatReadingNoHistory(t, dir, now.Add(30*time.Minute), "the heartbeat that found nothing new")
	if quiet.sum.Changed {
		t.Error("the heartbeat that found nothing new changed files")
	}
	for _, cmd := range log() {
		if f := gitVerb(cmd); f == "add" || f == "write-tree" || f == "rm" {
			t.Errorf("the heartbeat that found nothing new staged files: git %s", cmd)
		}
	}
	if out := gitOut(t, dir, "status", "--porcelain", "--", ".", ":(exclude,glob)mesh-state/*.lock"); out != "" {
		t.Errorf("the heartbeat that found nothing new left to commit:\n%s", out)
	}
}

// TestQuietHeartbeatSeesCopiesLostWithTheCache: a checkout whose copies
// are gone (a fresh clone, or the Actions cache evicted) is not the one
// the derived state was computed from, since the copies it lacks are to
// be fetched again: the heartbeat reads the history, the backfill takes
// the copy again, and it equals a heartbeat computing everything. The
// heartbeat after it, the copy back, finds nothing new and reads nothing.
func TestQuietHeartbeatSeesCopiesLostWithTheCache(t *testing.T) {
	p := newQuietPeer(t)
	dir := forkWithNews(t, p)
	cache := filepath.Join(dir, filepath.FromSlash(node.StateDir), "copies")
	kept := gitOut(t, dir, "ls-files", "--others", "--ignored", "--exclude-standard", "--", cache)
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	at := now.Add(30 * time.Minute)
	full := fullCopy(t, dir)
	got, reads := beatCounting(t, dir, at)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if reads[node.LedgerFile] == 0 {
		t.Errorf("the copies were lost and the history was not read: %v", reads)
	}
	if again := gitOut(t, dir, "ls-files", "--others", "--ignored", "--exclude-standard", "--", cache); again != kept {
		t.Errorf("copies after the backfill:\n%s\nbefore they were lost:\n%s", again, kept)
	}
	wantSame(t, dir, full, got, at)
	commitNode(t, dir)
	next, reads := beatCounting(t, dir, at.Add(30*time.Minute))
	if next.err != nil {
		t.Fatal(next.err)
	}
	if reads[node.LedgerFile] > 0 {
		t.Errorf("the heartbeat after the backfill read the history: %v", reads)
	}
}

// forkWithNews is a founder node polling p in a git checkout with the
// template's .gitignore, after a heartbeat that validated p's trace and
// kept its copy, committed as the workflow commits: the copy is on disk,
// and not in git.
func forkWithNews(t *testing.T, p *quietPeer) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ignore, err := os.ReadFile(filepath.Join("..", "..", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	dir := newNode(t, p.base)
	writeText(t, dir, ".gitignore", string(ignore))
	gitRun(t, dir, "init", "-q")
	gitCommit(t, dir)
	if sum := mustBeat(t, dir, now); sum.ValidationsPublished != 1 {
		t.Fatalf("heartbeat with news published %d validations, want 1", sum.ValidationsPublished)
	}
	commitNode(t, dir)
	copies := gitOut(t, dir, "ls-files", "--others", "--ignored", "--exclude-standard", "--", filepath.Join(node.StateDir, "copies"))
	if strings.Count(copies, "\n") != 1 {
		t.Fatalf("copies on disk, untracked and ignored: %q, want one file", copies)
	}
	if tracked := gitOut(t, dir, "ls-files", "--", node.StateDir+"/copies"); tracked != "" {
		t.Fatalf("git tracks the copies: %q", tracked)
	}
	return dir
}

// commitNode commits the node's files as the workflow's step "Commit and
// push" does, without the push.
func commitNode(t *testing.T, dir string) {
	t.Helper()
	if _, err := gitpush.CommitAndPush(context.Background(), gitpush.Options{Dir: dir, AuthorName: "t", AuthorEmail: "t@t"}); err != nil {
		t.Fatalf("commit: %v", err)
	}
}

// restoreCache copies the copies of the node at from to the checkout at
// to, bytes and times, as the workflow's restore from the Actions cache
// does.
func restoreCache(t *testing.T, from, to string) {
	t.Helper()
	src := filepath.Join(from, filepath.FromSlash(node.StateDir), "copies")
	dst := filepath.Join(to, filepath.FromSlash(node.StateDir))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
}

// logGit puts before git on PATH a script that logs each git command;
// the function it returns reads the commands logged.
func logGit(t *testing.T) func() []string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	bin := t.TempDir()
	log := filepath.Join(bin, "log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() []string {
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(data)), "\n")
	}
}

// gitVerb is the git command of a logged command line, after -C DIR.
func gitVerb(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) > 2 && f[0] == "-C" {
		f = f[2:]
	}
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// TestEmptiedStoreSavedKeepsTheHeartbeatQuiet: when the last copy is
// taken down the store is empty, and the workflow saves it too (docs/
// github.md, "The copies' cache"). Later runs restore that empty store
// and are quiet; restoring the older store instead, as when the empty one
// was not saved, has every later heartbeat read its history again.
func TestEmptiedStoreSavedKeepsTheHeartbeatQuiet(t *testing.T) {
	for _, tc := range []struct {
		name      string
		saveEmpty bool
	}{
		{"the empty store saved", true},
		{"the older store restored", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newQuietPeer(t)
			dir := forkWithNews(t, p)
			cache := filepath.Join(dir, filepath.FromSlash(node.StateDir), "copies")
			older := saveStore(t, cache) // run 1 saved the store
			p.mu.Lock()
			p.rows[0] = "| 1 | " + strings.Repeat("0", 64) + " | traces/gone.md | knowledge | pending | 2026-03-14T10:00:00Z |\n"
			p.mu.Unlock()
			at := now.Add(30 * time.Minute)
			if _, err := beatAt(t, dir, at); err != nil {
				t.Fatal(err)
			}
			commitNode(t, dir)
			newest := older
			if tc.saveEmpty {
				if err := os.MkdirAll(cache, 0o755); err != nil { // the store step's mkdir -p
					t.Fatal(err)
				}
				newest = saveStore(t, cache)
			}
			for i := 1; i <= 3; i++ {
				restoreStore(t, newest, cache)
				got, reads := beatCounting(t, dir, at.Add(time.Duration(i)*30*time.Minute))
				if got.err != nil {
					t.Fatal(got.err)
				}
				// Quiet: the history left unread (a presence refresh may
				// still change MANIFEST.md).
				if quiet := reads[node.LedgerFile] == 0; quiet != tc.saveEmpty {
					t.Errorf("run %d: quiet %v (ledger reads %d), want %v", i, quiet, reads[node.LedgerFile], tc.saveEmpty)
				}
				commitNode(t, dir)
			}
		})
	}
}

// saveStore copies the directory cache aside, bytes and times, as the
// workflow's save to the Actions cache keeps it, and returns the copy.
func saveStore(t *testing.T, cache string) string {
	t.Helper()
	saved := filepath.Join(t.TempDir(), "store")
	if out, err := exec.Command("cp", "-a", cache, saved).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	return saved
}

// restoreStore replaces the directory cache with the saved store, as a
// runner's fresh checkout restored from the Actions cache.
func restoreStore(t *testing.T, saved, cache string) {
	t.Helper()
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", saved, cache).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
}
