package main

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/relay"
	"github.com/meshnode/meshnode/internal/translog"
)

// bidiControls reorder what a terminal shows around them (U+202E RIGHT-
// TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE): a note key's name may
// hold them, and a relay's entry, which refuses C0 and C1 controls, lets
// them through.
const bidiControls = "\u202e\u2066"

// TestPeersPrintsNoControlsOfARelaysFault: an agent whose log key is
// named with bidirectional controls is pinned (at first contact); a hostile
// relay (served on loopback) then relays its checkpoint with the
// signature altered, so the pinned key refuses it and the relay is
// faulted `forged`, the fault's text naming the key. On a1601b37 `peers`
// (the relay's line), `peers forgive-relay` and the heartbeat's summary
// printed that text raw, so the relay's bytes reordered the operator's
// terminal; now each shows U+FFFD where a control was.
func TestPeersPrintsNoControlsOfARelaysFault(t *testing.T) {
	a := newTestLogAgent(t)
	origin, err := translog.Origin(a.url)
	if err != nil {
		t.Fatal(err)
	}
	a.skey, a.vkey, err = translog.GenerateKey(origin + bidiControls)
	if err != nil {
		t.Fatal(err)
	}
	a.setIdentity(t)
	a.publish(t, 1, a.skey)
	r := newServedRelay(t)
	rkey, rvkey := r.key(t)
	dir := t.TempDir()
	writeTestFile(t, dir, "mesh.yaml", fmt.Sprintf("agent: ada\nurl: https://ada.example/\nallow_private_addresses: true\nrelays:\n  list:\n    - %s %s\n", r.url, rvkey))
	writeTestFile(t, dir, node.AgentsFile, "# name | trace_url | joined\nfay | "+a.url+" | 2026-03-01\n")
	pins, err := logpin.Load(filepath.Join(dir, node.LogPinsFile))
	if err != nil {
		t.Fatal(err)
	}
	pins.Put(&logpin.Pin{URL: a.url, Key: a.vkey}) // as a first contact leaves it
	if _, err := pins.Save(); err != nil {
		t.Fatal(err)
	}
	files, err := (&relay.Log{}).Extend([]relay.Entry{{Agent: a.url, Checkpoint: []byte(alterSignature(t, a.checkpoint(t)))}}, rkey)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		writeTestFile(t, r.dir, node.LogDir+"/"+name, string(data))
	}
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	summary := cliT(t, "heartbeat", "--dir", dir, "--now", now.Format(time.RFC3339))
	peers := cliT(t, "peers", "--dir", dir, "--now", now.Format(time.RFC3339))
	if !strings.Contains(peers, "faulted (forged: ") {
		t.Fatalf("the relay that altered fay's checkpoint is not faulted forged:\n%s", peers)
	}
	forgave := cliT(t, "peers", "forgive-relay", r.url, "--dir", dir, "--now", now.Format(time.RFC3339))
	for what, out := range map[string]string{"the heartbeat's summary": summary, "peers": peers, "peers forgive-relay": forgave} {
		assertNoEscapes(t, what, out)
	}
}

// alterSignature returns the signed note cp with the last byte of each
// signature changed: the same key's name and hash, a signature that
// verifies nothing.
func alterSignature(t *testing.T, cp string) string {
	t.Helper()
	text, sigs, ok := strings.Cut(cp, "\n\n")
	if !ok {
		t.Fatalf("not a signed note: %q", cp)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(sigs, "\n"), "\n") {
		i := strings.LastIndexByte(line, ' ')
		sig, err := base64.StdEncoding.DecodeString(line[i+1:])
		if err != nil {
			t.Fatal(err)
		}
		sig[len(sig)-1] ^= 1
		out = append(out, line[:i+1]+base64.StdEncoding.EncodeToString(sig))
	}
	return text + "\n\n" + strings.Join(out, "\n") + "\n"
}
