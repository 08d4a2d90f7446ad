package setup

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
)

// StateDir holds the node's state files.
const StateDir = "mesh-state"

// stateFiles are the state files doctor reads. A missing one is fine: the
// first heartbeat writes them.
var stateFiles = []string{"polling-cursors.json", "ledger.json", "queue.json"}

func checkState(dir string) []Finding {
	out := make([]Finding, 0, len(stateFiles))
	for _, name := range stateFiles {
		out = append(out, checkStateFile(dir, name))
	}
	return out
}

func checkStateFile(dir, name string) Finding {
	rel := StateDir + "/" + name
	f := Finding{Check: "state " + name}
	data, err := os.ReadFile(filepath.Join(dir, StateDir, name))
	switch {
	case errors.Is(err, os.ErrNotExist):
		f.Status, f.Message = StatusOK, rel+" not written yet (the first heartbeat writes it)"
		return f
	case err != nil:
		f.Status, f.Message, f.Fix = StatusFail, "cannot read "+rel+": "+unwrapPath(err), "check the file's permissions"
		return f
	}
	var v map[string]json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		f.Status, f.Message = StatusFail, rel+" is corrupt: "+err.Error()
		f.Fix = "restore it from history (git log -- " + rel + "; git show COMMIT:" + rel + " > " + rel + ")"
		return f
	}
	f.Status, f.Message = StatusOK, rel+" reads"
	return f
}
