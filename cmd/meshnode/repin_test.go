package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// writeForkedPin gives ann, of writePeersNode's node, a log pin holding a
// fork alarm, as a heartbeat leaves it.
func writeForkedPin(t *testing.T, dir string) {
	t.Helper()
	p := logpin.Pin{URL: "https://ann.example/", Key: "ann.example+01234567+AQ==", Checkpoint: "ann.example\n5\nAAA=\n",
		Alarm: &logpin.Alarm{Kind: logpin.AlarmFork, Detail: "two checkpoints of the same size with different roots", At: peersNow,
			Checkpoints: []string{"ann.example\n5\nAAA=\n", "ann.example\n5\nBBB=\n"}}}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	pins := map[string][]byte{statefile.PeerFileName(p.URL): data}
	if _, err := statefile.WriteSome(filepath.Join(dir, node.LogPinsFile), pins, nil); err != nil {
		t.Fatal(err)
	}
}

func TestPeersShowsARefusedLogAndRepinClearsItKeepingTheEvidence(t *testing.T) {
	dir := writePeersNode(t)
	writeForkedPin(t, dir)
	now := peersNow.Format(time.RFC3339)
	out, err := runCmd(t, "peers", "--dir", dir, "--now", now)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "log: ann: refused: fork (two checkpoints of the same size with different roots)") {
		t.Fatalf("the table does not say ann's log is refused:\n%s", out)
	}
	out, err = runCmd(t, "peers", "repin", "ann", "--dir", dir, "--now", now)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "re-pinned ann (https://ann.example/): dropped key ann.example+01234567+AQ==") || !strings.Contains(out, "its fork alarm and the evidence stay in mesh-state/log-pins/") {
		t.Fatalf("repin says:\n%s", out)
	}
	pins, err := logpin.Load(filepath.Join(dir, node.LogPinsFile))
	if err != nil {
		t.Fatal(err)
	}
	p := pins.Get("https://ann.example/")
	if p.Key != "" || p.Alarm != nil || !p.Repin || len(p.Resolved) != 1 || len(p.Resolved[0].Checkpoints) != 2 || !p.Resolved[0].Resolved.Equal(peersNow) {
		t.Fatalf("pin after repin: %+v", p)
	}
	out, err = runCmd(t, "peers", "--dir", dir, "--now", now, "--json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"log": "re-pinned: the next poll pins the key IDENTITY.md publishes"`) || !strings.Contains(out, `"log": "manifest"`) {
		t.Fatalf("--json log fields:\n%s", out)
	}
}

func TestRepinRefusesAPeerWithoutALogOrUnknown(t *testing.T) {
	dir := writePeersNode(t)
	for _, who := range []string{"cy", "zed"} {
		_, err := runCmd(t, "peers", "repin", who, "--dir", dir)
		var u *usageError
		if !errors.As(err, &u) {
			t.Errorf("repin %s: %v, want a usage error", who, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, statefile.Dir(node.LogPinsFile))); !os.IsNotExist(err) {
		t.Errorf("a refused repin wrote pins: %v", err)
	}
}
