package node_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/presence"
)

// TestQuietRefreshReadsNoHistoryAndEqualsTheFullOne runs, after a
// heartbeat with news was committed, a heartbeat that finds nothing new
// once our MANIFEST.md is due its presence refresh: it refreshes
// `updated:` without reading the published files, the ledger or the
// copies, and leaves the files, the derived state included, that a copy
// without derived state leaves reading the whole history. The quiet
// heartbeat after its commit uses that derived state and commits
// nothing. Before, every refresh (every third heartbeat of a quiet node)
// read the whole history: after years of it, hundreds of megabytes.
func TestQuietRefreshReadsNoHistoryAndEqualsTheFullOne(t *testing.T) {
	p := newQuietPeer(t)
	dir := quietNode(t, p)
	at := now.Add(presence.RefreshAfter + time.Minute)
	quiet, _ := beatReadingNoHistory(t, dir, at, "a presence refresh")
	if !quiet.sum.Changed {
		t.Error("a presence refresh changed no file")
	}
	full := fullCopy(t, dir)
	wantSame(t, dir, full, quiet, at)
	mine, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(node.DerivedFile)))
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := os.ReadFile(filepath.Join(full, filepath.FromSlash(node.DerivedFile)))
	if err != nil {
		t.Fatal(err)
	}
	if string(mine) != string(theirs) {
		t.Errorf("derived state after the refresh:\n%s\nthe full computation's:\n%s", mine, theirs)
	}

	gitCommit(t, dir)
	beatReadingNoHistory(t, dir, at.Add(30*time.Minute), "the quiet heartbeat after a refresh")
	if out, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--", ".", ":(exclude,glob)mesh-state/*.lock").Output(); err != nil || len(out) > 0 {
		t.Errorf("the quiet heartbeat after a refresh left to commit: %s %v", out, err)
	}
}

// TestRefreshKeepsNoDerivedStateOverAnEditMadeDuringIt: a presence
// refresh keeps its derived record under the digest of the history as
// the refresh leaves it, which is right only when the refresh's
// MANIFEST.md is all that changed. A person's edit made while the
// heartbeat ran (here, as it polls the peer) must not be folded into
// that digest: the next heartbeat must read the history again, as it
// would had the edit come after. Before, the refresh took the edit in,
// and heartbeats went on from a record computed without it.
func TestRefreshKeepsNoDerivedStateOverAnEditMadeDuringIt(t *testing.T) {
	p := newQuietPeer(t)
	dir := quietNode(t, p)
	edited := false
	p.served = func() {
		if edited {
			return
		}
		edited = true
		f, err := os.OpenFile(filepath.Join(dir, node.ConfigFile), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString("\n# edited by hand while the heartbeat ran\n")
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			t.Error(err)
		}
	}
	at := now.Add(presence.RefreshAfter + time.Minute)
	refresh, _ := beatCounting(t, dir, at)
	if refresh.err != nil {
		t.Fatal(refresh.err)
	}
	if !edited {
		t.Fatal("the refresh polled no peer: the edit was not made during it")
	}
	if !refresh.sum.Changed {
		t.Fatal("the heartbeat refreshed nothing")
	}
	gitCommit(t, dir)
	next, reads := beatCounting(t, dir, at.Add(30*time.Minute))
	if next.err != nil {
		t.Fatal(next.err)
	}
	read := false
	for rel := range reads {
		read = read || history(rel)
	}
	if !read {
		t.Error("the heartbeat after the edit read no history: the refresh kept its derived record over the edit")
	}
}

// TestQuietRefreshStagesNothing: the presence refresh digests the history
// it leaves from git's listing at the heartbeat's open and the new
// MANIFEST.md's blob, so it asks git no second clean check and stages
// nothing. Before, it staged the whole work tree into a copy of git's
// index (git add over every file of the history, then write-tree): after
// three years of 10,000 agents, 31 MB read and about 3 s of CPU every
// 75 minutes. The commands are seen through a git on PATH that logs them.
func TestQuietRefreshStagesNothing(t *testing.T) {
	p := newQuietPeer(t)
	dir := quietNode(t, p)
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
	at := now.Add(presence.RefreshAfter + time.Minute)
	refresh, reads := beatCounting(t, dir, at)
	if refresh.err != nil {
		t.Fatal(refresh.err)
	}
	if !refresh.sum.Changed {
		t.Fatal("the heartbeat refreshed nothing")
	}
	for rel := range reads {
		if history(rel) {
			t.Errorf("a presence refresh read %s", rel)
		}
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var statuses int
	for _, cmd := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(cmd)
		if len(f) > 2 && f[0] == "-C" {
			f = f[2:]
		}
		switch {
		case len(f) == 0:
		case f[0] == "add" || f[0] == "write-tree" || f[0] == "rm":
			t.Errorf("the refresh staged files: git %s", cmd)
		case f[0] == "status":
			statuses++
		}
	}
	if statuses != 1 {
		t.Errorf("the refresh ran git status %d times, want the one clean check at its open:\n%s", statuses, data)
	}
	gitCommit(t, dir)
	next, reads := beatCounting(t, dir, at.Add(30*time.Minute))
	if next.err != nil {
		t.Fatal(next.err)
	}
	for rel := range reads {
		if history(rel) {
			t.Errorf("the quiet heartbeat after the refresh read %s: the refresh's digest was not git's", rel)
		}
	}
}
