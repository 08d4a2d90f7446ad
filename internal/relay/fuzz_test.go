package relay

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// FuzzParseEntry checks that any bytes a relay serves as an entry either
// fail with an error or parse to an entry that marshals back to them.
func FuzzParseEntry(f *testing.F) {
	a := newAgent(f, "https://agent.example/mesh/")
	good, err := a.entry(f).Marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte("agent https://agent.example/mesh/\n"))
	f.Add([]byte("agent HTTPS://Agent.example/mesh\nx\n\n— y\n"))
	f.Add([]byte("agent https://a.example/\nt\n\nsig\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseEntry(data)
		if err != nil {
			return
		}
		again, err := e.Marshal()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("parsed %q, marshals to %q, %v", data, again, err)
		}
	})
}

// FuzzLoadStoreAgentFile checks that any bytes found as an agent's file
// of the relays' state either fail to load with an error or load to a
// store whose save loads back to the same listings and pending
// checkpoints, with their times, and whose second save writes nothing.
func FuzzLoadStoreAgentFile(f *testing.F) {
	const relayURL, agentURL = "https://relay.example/r/", "https://agent.example/mesh/"
	f.Add([]byte(`{"agent":"` + agentURL + `","pending":{"` + relayURL + `":"cp\n"},"pending_seen":{"` + relayURL + `":"2026-03-01T12:00:00Z"}}`))
	f.Add([]byte(`{"agent":"` + agentURL + `","pending":{"` + relayURL + `":"cp\n"}}`))
	f.Add([]byte(`{"agent":"` + agentURL + `","pending":{"` + relayURL + `":"cp\n"},"pending_seen":{"` + relayURL + `":"2026-03-01T14:00:00+02:00"}}`))
	f.Add([]byte(`{"agent":"` + agentURL + `","listed":{"` + relayURL + `":{"size":3,"root":"r","seen":"2026-03-01T12:00:00Z"}},"pending_seen":{"https://other.example/":"2026-03-01T12:00:00Z"}}`))
	f.Add([]byte(`{"agent":"https://elsewhere.example/","pending":{"` + relayURL + `":"cp\n"},"pending_seen":{"` + relayURL + `":"0001-01-01T00:00:00Z"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "relays.json")
		savedRelay(t, path, relayURL)
		flat := statefile.FlatFilePath(path, statefile.PeerFileName(agentURL))
		if err := os.WriteFile(flat, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := LoadStore(path)
		if err != nil {
			return
		}
		want := heldOf(s)
		if _, err := s.Save(); err != nil {
			t.Fatal(err)
		}
		again, err := LoadStore(path)
		if err != nil {
			t.Fatalf("a saved store does not load: %v", err)
		}
		if got := heldOf(again); got != want {
			t.Fatalf("loaded:\n%s\nsaved and loaded again:\n%s", want, got)
		}
		if changed, err := again.Save(); changed || err != nil {
			t.Fatalf("a second save wrote files (%v, %v)", changed, err)
		}
	})
}

// heldOf is what s holds of its relays' agents, as text to compare.
func heldOf(s *Store) string {
	var b strings.Builder
	for _, h := range s.All() {
		for _, a := range slices.Sorted(maps.Keys(h.Agents)) {
			l := h.Agents[a]
			fmt.Fprintf(&b, "%s listed %s %d %s %s\n", h.URL, a, l.Size, l.Root, l.Seen.UTC().Format(time.RFC3339Nano))
		}
		for _, a := range slices.Sorted(maps.Keys(h.Pending)) {
			fmt.Fprintf(&b, "%s pending %s %q %s\n", h.URL, a, h.Pending[a], h.PendingSeen[a].UTC().Format(time.RFC3339Nano))
		}
	}
	return b.String()
}
