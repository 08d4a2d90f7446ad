package heartbeat

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// logPeer serves n traces under base, listed by a signed log and by a
// MANIFEST.md without rows, and its IDENTITY.md names the log's key.
func logPeer(t *testing.T, base string, n int) *fakePeer {
	t.Helper()
	p, _ := logPeerAt(t, n, base)
	return p
}

// logPeerAt is logPeer serving the same files under each of bases (the
// log made at the first), and the paths of its log's files under log/.
func logPeerAt(t *testing.T, n int, bases ...string) (*fakePeer, []string) {
	t.Helper()
	p := newFakePeer(t)
	return p, serveLog(t, p, "big", n, bases...)
}

// serveLog makes p serve, under each of bases, the files of agent name: n
// traces listed by a signed log under a new key (made at the first base)
// and by a MANIFEST.md without rows, and an IDENTITY.md naming the key. It
// returns the paths of the log's files under log/.
func serveLog(t *testing.T, p *fakePeer, name string, n int, bases ...string) []string {
	t.Helper()
	origin, err := translog.Origin(p.URL + bases[0])
	if err != nil {
		t.Fatal(err)
	}
	skey, vkey, err := translog.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	var entries []translog.Entry
	for seq := 1; seq <= n; seq++ {
		body := fmt.Appendf(nil, "# %s %d\n\n## Work\n\nTrace %d of a %s log.\n", name, seq, seq, name)
		file := fmt.Sprintf("traces/%04d.md", seq)
		for _, base := range bases {
			p.serve(base+file, body)
		}
		entries = append(entries, translog.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes(body), File: file,
			Type: "knowledge", Submitted: time.Date(2026, 3, 1, 0, 0, seq%60, 0, time.UTC)})
	}
	files, err := translog.Update(nil, entries, skey)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for path, b := range files {
		paths = append(paths, path)
		for _, base := range bases {
			p.serve(base+node.LogDir+"/"+path, b)
		}
	}
	for _, base := range bases {
		p.serve(base+node.IdentityFile, []byte("# IDENTITY\n\nname: "+name+"\n"+translog.IdentityKey+": "+vkey+"\n"))
		p.handle(base+manifest.FileName, staticManifest([]byte("# MANIFEST\n\nagent: "+name+"\nsequence: 0\n")))
	}
	return paths
}

// TestBigSignedLogIsReadOverHeartbeats: a peer whose log holds more than
// a poll reads (here limits.manifest_bytes of bundles) is read whole over
// the next heartbeats, each entry verified once, and shown catching up
// meanwhile; it once failed every poll and stayed unread.
func TestBigSignedLogIsReadOverHeartbeats(t *testing.T) {
	const n = 1000 // four bundles; a poll reads one at 1 KiB, and the last, partial one with the one before (it reads it first, for the root)
	p := logPeer(t, "/l/", n)
	url := p.URL + "/l/"
	dir := newNode(t, [][2]string{{"big", url}}, "gossip:\n  enabled: false\nlimits:\n  manifest_bytes: 1024\n")
	verified, beats := 0, 0
	var states []string
	seen := func() manifest.Seq {
		if c := loadState(t, dir).Cursors[url]; c != nil {
			return c.LastSeenSeq
		}
		return 0
	}
	for ; beats < 6 && seen() < n; beats++ {
		sum := beat(t, dir, testNow.Add(time.Duration(beats)*cursorStep))
		verified += sum.Verified
		pins, err := logpin.Load(filepath.Join(dir, node.LogPinsFile))
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, logpin.State(pins.Get(url)))
	}
	if verified != n || beats != 3 {
		t.Fatalf("%d traces verified in %d heartbeats, want %d in 3; log states %q", verified, beats, n, states)
	}
	if want := []string{"log: 256 of 1000 entries read", "log: 512 of 1000 entries read", "log: 1000 entries verified"}; !slices.Equal(states, want) {
		t.Fatalf("log states %q", states)
	}
	if sum := beat(t, dir, testNow.Add(3*cursorStep)); sum.Verified != 0 {
		t.Fatalf("after catching up: %d verified again", sum.Verified)
	}
}
