package setup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/statefile"
)

// StateDir holds the node's state files.
const StateDir = node.StateDir

// stateFiles are the states doctor reads, each named by the single file
// older nodes kept (the loaders read its directory of per-peer files,
// mesh-state/ledger/ for ledger.json, and the single file alike), with the
// loader of the package that owns it. A missing state is fine: the first
// heartbeat writes it.
var stateFiles = []struct {
	name string
	load func(path string) error
}{
	{"polling-cursors.json", func(p string) error { _, err := state.LoadAll(p); return err }},
	{"ledger.json", func(p string) error { _, err := ledger.Load(p); return err }},
	{"queue.json", func(p string) error { _, err := queue.Open(p).List(); return err }},
	{"copies.json", func(p string) error { _, err := copies.Load(p); return err }},
}

func checkState(dir string) []Finding {
	out := make([]Finding, 0, len(stateFiles))
	for _, sf := range stateFiles {
		out = append(out, checkStateFile(dir, sf.name, sf.load))
	}
	return out
}

// checkStateFile loads one state and names what it read: the directory of
// per-peer files a heartbeat writes, or an older node's single file.
func checkStateFile(dir, name string, load func(string) error) Finding {
	path := filepath.Join(dir, StateDir, name)
	base := strings.TrimSuffix(name, ".json")
	f := Finding{Check: "state " + base}
	rel := StateDir + "/" + base + "/"
	switch {
	case exists(statefile.Dir(path)):
	case exists(path):
		rel = StateDir + "/" + name
	default:
		f.Status, f.Message = StatusOK, rel+" not written yet (the first heartbeat writes it)"
		return f
	}
	if err := load(path); err != nil {
		bad := rel
		var ce *statefile.CorruptError
		if errors.As(err, &ce) {
			if r, rerr := filepath.Rel(dir, ce.Path); rerr == nil && filepath.IsLocal(r) {
				bad = filepath.ToSlash(r)
			}
		}
		f.Status = StatusFail
		f.Message = strings.Replace(err.Error(), filepath.Join(dir, StateDir), StateDir, 1)
		f.Fix = "restore " + bad + " from history (git log -- " + bad + "; git checkout COMMIT -- " + bad + ") or move it away to start afresh"
		return f
	}
	f.Status, f.Message = StatusOK, rel+" reads"
	return f
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}
