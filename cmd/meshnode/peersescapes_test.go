package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/state"
)

// TestPeersPrintsNoTerminalEscapesOfALogsAlarm: a peer (or whoever holds
// its host) restarts its signed log under a key whose name holds escape
// sequences: a note key's name may hold any character but white space
// and '+', so the key verifies, and the restart alarm names it
// (logpin.State). On 14f1df39 `meshnode peers` printed it raw, so the
// operator's terminal obeyed the peer; now it prints U+FFFD where each
// escape was, as inbox, score and watch do; so
// does `peers repin`, which names the key it drops.
func TestPeersPrintsNoTerminalEscapesOfALogsAlarm(t *testing.T) {
	_, vkey, err := note.GenerateKey(nil, "fay"+oscTitle+csiClear+oscClipboard+c1CSI)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := note.NewVerifier(vkey); err != nil {
		t.Fatalf("setup: the key with escapes does not verify: %v", err)
	}
	dir := minimalNode(t)
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("fay | https://fay.example/ | 2026-02-01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := state.New()
	st.Cursor("https://fay.example/").Agent = "fay"
	if _, err := st.Save(filepath.Join(dir, node.CursorsFile), time.Time{}); err != nil {
		t.Fatal(err)
	}
	pins, err := logpin.Load(filepath.Join(dir, node.LogPinsFile))
	if err != nil {
		t.Fatal(err)
	}
	pins.Put(&logpin.Pin{URL: "https://fay.example/", Key: vkey, Alarm: &logpin.Alarm{
		Kind: logpin.AlarmRestart, Key: vkey, Size: 3, At: peersNow.Add(-time.Hour),
		Detail: "the log restarted under the key " + vkey + " at size 3 (log/key-3.md): nothing proves the lost key's owner wrote it"}})
	if _, err := pins.Save(); err != nil {
		t.Fatal(err)
	}

	out, err := runCmd(t, "peers", "--dir", dir, "--now", peersNow.Format(time.RFC3339))
	if err != nil {
		t.Fatal(err)
	}
	assertNoEscapes(t, "peers", out)

	// The operator re-pins past the alarm: the key dropped is named too.
	out, err = runCmd(t, "peers", "repin", "--dir", dir, "fay")
	if err != nil {
		t.Fatal(err)
	}
	assertNoEscapes(t, "peers repin", out)
}
