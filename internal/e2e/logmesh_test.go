package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signingkey"
	"github.com/meshnode/meshnode/internal/translog"
)

// withLog gives the named node a log key: its private half beside the
// node (DIR.log-key), its public half on IDENTITY.md's log_key line.
func (m *testMesh) withLog(name string) string {
	m.t.Helper()
	n := m.node(name)
	origin, err := translog.Origin(n.url)
	if err != nil {
		m.t.Fatal(err)
	}
	skey, vkey, err := translog.GenerateKey(origin)
	if err != nil {
		m.t.Fatal(err)
	}
	path, err := signingkey.DefaultPath(n.dir)
	if err != nil {
		m.t.Fatal(err)
	}
	if err := signingkey.Write(path, n.dir, skey); err != nil {
		m.t.Fatal(err)
	}
	writeFile(m.t, n.dir, node.IdentityFile, "# IDENTITY\n\nname: "+name+"\n"+translog.IdentityKey+": "+vkey+"\n")
	return vkey
}

// pinsOf reads the log pins the node in dir keeps.
func pinsOf(t *testing.T, dir string) *logpin.Pins {
	t.Helper()
	ps, err := logpin.Load(filepath.Join(dir, node.LogPinsFile))
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestThreeNodesPublishPollAndValidateThroughLogs is issue 23's mesh: ada
// and bob publish signed logs and read each other through them, cyd
// publishes MANIFEST.md only and is read from it; bob validates all.
func TestThreeNodesPublishPollAndValidateThroughLogs(t *testing.T) {
	m := threeNodes(t)
	keys := map[string]string{"ada": m.withLog("ada"), "bob": m.withLog("bob")}
	m.settle(maxRounds)
	bob, ada, cyd := m.node("bob"), m.node("ada"), m.node("cyd")
	if got := len(readValidations(t, bob.dir)); got != 5 {
		t.Fatalf("bob published %d validations, want 5 (3 of ada's traces read from its log, 2 of cyd's from MANIFEST.md)", got)
	}
	for _, c := range []struct{ reader, peer *testNode }{{bob, ada}, {ada, bob}, {cyd, ada}, {cyd, bob}} {
		p := pinsOf(t, c.reader.dir).Get(c.peer.url)
		want := readManifest(t, c.peer.dir).MaxSeq()
		if p == nil || p.Key != keys[c.peer.name] || p.Alarm != nil || p.LastSeq != want {
			t.Errorf("%s's pin of %s: %+v, want its key and seq %d", c.reader.name, c.peer.name, p, want)
		}
	}
	for _, n := range []*testNode{ada, bob} {
		if p := pinsOf(t, n.dir).Get(cyd.url); p != nil {
			t.Errorf("%s pinned cyd, which publishes no log: %+v", n.name, p)
		}
	}
	// ada read bob's validations through bob's log: its statuses moved.
	resolved := 0
	for _, e := range readManifest(t, ada.dir).Entries {
		if e.Status != manifest.StatusPending {
			resolved++
		}
	}
	if resolved != 3 {
		t.Errorf("ada resolved %d of its 3 traces from bob's validations", resolved)
	}

	t.Run("an altered file of a logged peer is refused as a mismatch", func(t *testing.T) {
		ada.addTraces(t, "bob", "002-manifest-diff-tool.md")
		m.beat("ada")
		f := filepath.Join(ada.dir, "traces", "002-manifest-diff-tool.md")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(strings.Replace(string(data), "a", "4", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		// Put it back after: a published file that changed stops the
		// owner's own rotation below.
		t.Cleanup(func() {
			if err := os.WriteFile(f, data, 0o644); err != nil {
				t.Error(err)
			}
		})
		sum := m.beat("bob")
		if len(sum.HashMismatches) != 1 || sum.HashMismatches[0].URL != ada.url+"traces/002-manifest-diff-tool.md" || sum.Verified != 0 {
			t.Fatalf("bob's summary: mismatches %+v, verified %d", sum.HashMismatches, sum.Verified)
		}
		if len(sum.LogsRefused) != 0 {
			t.Fatalf("the log itself verified: %+v", sum.LogsRefused)
		}
	})

	t.Run("a checkpoint under another key is refused until a re-pin", func(t *testing.T) {
		cpFile := filepath.Join(ada.dir, node.LogDir, translog.CheckpointFile)
		honest, err := os.ReadFile(cpFile)
		if err != nil {
			t.Fatal(err)
		}
		origin, _ := translog.Origin(ada.url)
		other, _, err := translog.GenerateKey(origin)
		if err != nil {
			t.Fatal(err)
		}
		forged, err := translog.Sign(translog.Checkpoint{Origin: origin, Size: 1}, other)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, ada.dir, node.LogDir+"/"+translog.CheckpointFile, string(forged))
		m.now = m.now.Add(heartbeatEvery)
		sum := m.beat("bob")
		if len(sum.LogsRefused) != 1 || sum.LogsRefused[0].Peer != "ada" || sum.LogsRefused[0].Kind != logpin.AlarmKeyChange {
			t.Fatalf("bob's summary: %+v", sum.LogsRefused)
		}
		writeFile(t, ada.dir, node.LogDir+"/"+translog.CheckpointFile, string(honest))
		m.now = m.now.Add(heartbeatEvery)
		if sum := m.beat("bob"); len(sum.LogsRefused) != 1 {
			t.Fatalf("the alarm went without a re-pin: %+v", sum.LogsRefused)
		}
		pins := pinsOf(t, bob.dir)
		pins.Repin(ada.url, m.now)
		if _, err := pins.Save(); err != nil {
			t.Fatal(err)
		}
		m.now = m.now.Add(heartbeatEvery)
		if sum := m.beat("bob"); len(sum.LogsRefused) != 0 {
			t.Fatalf("after the re-pin: %+v", sum.LogsRefused)
		}
		if p := pinsOf(t, bob.dir).Get(ada.url); p.Key != keys["ada"] || len(p.Resolved) != 1 {
			t.Fatalf("bob's pin of ada after the re-pin: %+v", p)
		}
	})

	t.Run("a rotation by ada's owner is followed with no alarm", func(t *testing.T) {
		newV := rotateLog(t, m, ada)
		ada.addTraces(t, "bob", "003-robots-cache.md")
		m.beat("ada")
		m.now = m.now.Add(heartbeatEvery)
		sum := m.beat("bob")
		if len(sum.LogsRefused) != 0 {
			t.Fatalf("bob refused ada's rotated log: %+v", sum.LogsRefused)
		}
		p := pinsOf(t, bob.dir).Get(ada.url)
		if p.Key != newV || len(p.Rotations) != 1 || p.Rotations[0].Previous != keys["ada"] || p.LastSeq != readManifest(t, ada.dir).MaxSeq() {
			t.Fatalf("bob's pin of ada after its rotation: %+v", p)
		}
	})
}

// rotateLog rotates n's log to a new key, as `meshnode sign --new-log-key`
// does, and leaves the new key beside the node for its next heartbeats.
func rotateLog(t *testing.T, m *testMesh, n *testNode) string {
	t.Helper()
	path, err := signingkey.DefaultPath(n.dir)
	if err != nil {
		t.Fatal(err)
	}
	oldS, err := signingkey.Load(path, n.dir)
	if err != nil {
		t.Fatal(err)
	}
	origin, _ := translog.Origin(n.url)
	newS, newV, err := translog.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(n.dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := heartbeat.Rotate(n.dir, cfg, oldS, newS, m.now); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := signingkey.Write(path, n.dir, newS); err != nil {
		t.Fatal(err)
	}
	return newV
}
