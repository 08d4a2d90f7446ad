package setup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/state"
)

// StateDir holds the node's state files.
const StateDir = "mesh-state"

// stateFiles are the state files doctor reads, each with the loader of the
// package that owns it. A missing file is fine: the first heartbeat writes
// it.
var stateFiles = []struct {
	name string
	load func(path string) error
}{
	{"polling-cursors.json", func(p string) error { _, err := state.Load(p); return err }},
	{"ledger.json", func(p string) error { _, err := ledger.Load(p); return err }},
	{"queue.json", func(p string) error { _, err := queue.Open(p).List(); return err }},
}

func checkState(dir string) []Finding {
	out := make([]Finding, 0, len(stateFiles))
	for _, sf := range stateFiles {
		out = append(out, checkStateFile(dir, sf.name, sf.load))
	}
	return out
}

func checkStateFile(dir, name string, load func(string) error) Finding {
	rel := StateDir + "/" + name
	path := filepath.Join(dir, StateDir, name)
	f := Finding{Check: "state " + name}
	if !exists(path) && !exists(state.SplitDir(path)) {
		f.Status, f.Message = StatusOK, rel+" not written yet (the first heartbeat writes it)"
		return f
	}
	if err := load(path); err != nil {
		f.Status = StatusFail
		f.Message = strings.Replace(err.Error(), filepath.Join(dir, StateDir), StateDir, 1)
		f.Fix = "restore it from history (git log -- " + rel + "; git show COMMIT:" + rel + " > " + rel + ") or move it away to start afresh"
		return f
	}
	f.Status, f.Message = StatusOK, rel+" reads"
	return f
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}
