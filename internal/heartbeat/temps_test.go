package heartbeat

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestRemoveTempsCoversEverySplitState: a temporary file a killed write
// left in any state directory of a file per peer (the relays' included)
// is removed before the heartbeat reads or commits anything.
func TestRemoveTempsCoversEverySplitState(t *testing.T) {
	dir := t.TempDir()
	var temps []string
	for _, f := range append(splitStates(), node.RelaysFile, node.LogPinsFile) {
		sub := filepath.Join(dir, statefile.Dir(f))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(sub, ".peer.json.tmp-123")
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
		temps = append(temps, p)
	}
	if err := removeTemps(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range temps {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind (err %v)", p, err)
		}
	}
}
