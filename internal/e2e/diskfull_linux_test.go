//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/meshnode/meshnode/internal/statefile"
)

// envChildFileLimit makes the heartbeat child run with RLIMIT_FSIZE at
// that many bytes: every write past it fails with EFBIG, as a write on a
// full disk fails with ENOSPC. Both reach atomicfile as a failed write of
// its temporary file; the limit is what a test can set without root.
const envChildFileLimit = "E2E_HEARTBEAT_FILE_LIMIT"

// init runs in the child before TestMain starts its heartbeat. Go's
// runtime ignores SIGXFSZ unless asked, so the write returns EFBIG.
func init() {
	v := os.Getenv(envChildFileLimit)
	if v == "" {
		return
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err == nil {
		err = syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "heartbeat child: file limit %q: %v\n", v, err)
		os.Exit(2)
	}
}

// TestHeartbeatOnAFullDiskFailsCleanlyThenARerunEndsAsAnUninterruptedRun
// runs a heartbeat that writes every kind of file on a "disk" that refuses
// writes past a size, for sizes that make a different write fail each
// time. The heartbeat must exit with an error that says why (exit 1, not a
// crash), leave every file whole (as it was, as a complete run writes it,
// or a state file between the two; no temporary file), and a rerun with
// room must end exactly as an uninterrupted run.
func TestHeartbeatOnAFullDiskFailsCleanlyThenARerunEndsAsAnUninterruptedRun(t *testing.T) {
	scene, now := crashScene(t)
	ref := copyNode(t, scene)
	if _, err := runHeartbeat(ref, now); err != nil {
		t.Fatalf("uninterrupted heartbeat: %v", err)
	}
	want := snapshot(t, ref)
	scenes := snapshot(t, scene)
	// One limit under each size the run writes, so that each time another
	// write is the first to fail.
	limits := map[int]bool{0: true}
	for f, sum := range want {
		if scenes[f] == sum {
			continue
		}
		fi, err := os.Stat(filepath.Join(ref, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 0 {
			limits[int(fi.Size())-1] = true
		}
	}
	if len(limits) < 8 {
		t.Fatalf("the run writes files of %d sizes; the scene must write every kind", len(limits)-1)
	}
	for _, limit := range slices.Sorted(maps.Keys(limits)) {
		t.Run(fmt.Sprintf("writes fail past %d bytes", limit), func(t *testing.T) {
			dir := copyNode(t, scene)
			before := snapshot(t, dir)
			cmd := childHeartbeat(dir, now)
			cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", envChildFileLimit, limit))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "file too large") {
				t.Fatalf("heartbeat on a full disk: %v, stderr %q; want exit 1 naming the failed write", err, stderr.String())
			}
			got, tmp := splitTemporary(snapshot(t, dir))
			if len(tmp) > 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
			for f, sum := range got {
				if sum == before[f] || sum == want[f] {
					continue
				}
				// The queue is written at each step of an item (queued,
				// claimed, done), so a run stopped half way leaves a
				// state between; it must still be whole.
				if !wholeStateFile(filepath.Join(dir, filepath.FromSlash(f))) {
					t.Errorf("%s is neither as it was, nor as a complete run writes it, nor a whole state file", f)
				}
			}
			if _, err := runHeartbeat(dir, now); err != nil {
				t.Fatalf("rerun with room: %v", err)
			}
			if diff := diffSnapshots(want, snapshot(t, dir)); len(diff) > 0 {
				t.Errorf("after the rerun the node differs from an uninterrupted run: %v", diff)
			}
		})
	}
}

// wholeStateFile reports whether the file at p is a whole state file: a
// JSON document, or a shard of a split state (statefile) whose every
// content is one.
func wholeStateFile(p string) bool {
	if strings.HasSuffix(p, ".json") {
		data, err := os.ReadFile(p)
		return err == nil && json.Valid(data)
	}
	if !strings.HasSuffix(p, ".peers") {
		return false
	}
	_, files, err := statefile.Read(filepath.Dir(p) + ".json")
	if err != nil {
		return false
	}
	for _, data := range files {
		if !json.Valid(data) {
			return false
		}
	}
	return true
}
