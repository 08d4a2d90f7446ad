package heartbeat

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/logsource"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// logHost is a peer that publishes its traces through a signed log, on
// a host that can go down, and copies its files to mirrors.
type logHost struct {
	t          *testing.T
	p          *fakePeer
	base, skey string
	mu         sync.Mutex
	down       bool
	files      map[string][]byte // by path under base
	entries    []translog.Entry
}

func newLogHost(t *testing.T, base, mirror string) *logHost {
	t.Helper()
	h := &logHost{t: t, p: newFakePeer(t), base: base, files: map[string][]byte{}}
	origin, err := translog.Origin(h.url())
	if err != nil {
		t.Fatal(err)
	}
	skey, vkey, err := translog.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	h.skey = skey
	h.serve(node.IdentityFile, []byte("# IDENTITY\n\nname: mirrored\n"+translog.IdentityKey+": "+vkey+"\n"+logsource.IdentityMirror+": "+mirror+"\n"))
	h.serve(manifest.FileName, []byte("# MANIFEST\n\nagent: mirrored\nsequence: 0\n"))
	return h
}

func (h *logHost) url() string { return h.p.URL + h.base }

// serve makes path under base answer body while the host is up.
func (h *logHost) serve(path string, body []byte) {
	h.mu.Lock()
	h.files[path] = body
	h.mu.Unlock()
	h.p.handle(h.base+path, func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		down := h.down
		h.mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		w.Write(body)
	})
}

// publish adds traces from..to and logs them.
func (h *logHost) publish(from, to int) {
	for seq := from; seq <= to; seq++ {
		body := fmt.Appendf(nil, "# mirrored %d\n\n## Work\n\nTrace %d, served by its origin and its mirror.\n", seq, seq)
		file := fmt.Sprintf("traces/%04d.md", seq)
		h.serve(file, body)
		h.entries = append(h.entries, translog.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes(body), File: file,
			Type: "knowledge", Submitted: time.Date(2026, 3, 1, 0, 0, seq, 0, time.UTC)})
	}
	files, err := translog.Update(nil, h.entries, h.skey)
	if err != nil {
		h.t.Fatal(err)
	}
	for path, b := range files {
		h.serve(node.LogDir+"/"+path, b)
	}
}

// copyTo serves every file of h on m under base, as a mirror does.
func (h *logHost) copyTo(m *fakePeer, base string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for path, b := range h.files {
		m.serve(base+path, b)
	}
}

func (h *logHost) setDown(down bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.down = down
}

// TestOriginDownFilesComeFromAMirror: a peer read through its signed
// log whose origin is down is read from the mirror its IDENTITY.md
// listed: its new entries and files, each file verified against its
// logged hash and validated as usual. A file the mirror altered is
// refused, no dispute (the mirror's fault, not the peer's), and the
// origin's copy is taken once it answers.
func TestOriginDownFilesComeFromAMirror(t *testing.T) {
	m := newFakePeer(t)
	h := newLogHost(t, "/o/", m.URL+"/m/")
	h.publish(1, 5)
	dir := newNode(t, [][2]string{{"mirrored", h.url()}}, "gossip:\n  enabled: false\n")
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	if sum := beat(t, dir, testNow); sum.Verified != 5 {
		t.Fatalf("origin up: %d verified", sum.Verified)
	}
	h.publish(6, 10)
	h.copyTo(m, "/m/")
	m.serve("/m/traces/0008.md", []byte("# mirrored 8\n\nNot what the peer logged.\n"))
	h.setDown(true)
	sum := beat(t, dir, testNow.Add(cursorStep))
	if sum.Verified != 4 || sum.ValidationsPublished != 4 || sum.DisputesPublished != 0 || len(sum.HashMismatches) != 0 {
		t.Fatalf("origin down: %d verified, %d validations, %d disputes, mismatches %+v", sum.Verified, sum.ValidationsPublished, sum.DisputesPublished, sum.HashMismatches)
	}
	h.setDown(false)
	sum = beat(t, dir, testNow.Add(2*cursorStep))
	if sum.Verified != 1 || sum.ValidationsPublished != 1 || sum.DisputesPublished != 0 {
		t.Fatalf("origin back: %d verified, %d validations, %d disputes", sum.Verified, sum.ValidationsPublished, sum.DisputesPublished)
	}
	if c := loadState(t, dir).Cursors[h.url()]; c.LastSeenSeq != 10 || len(c.Retry) != 0 {
		t.Fatalf("cursor %+v", c)
	}
}
