package relay

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// TestStoreRewritesOnlyTheAgentsThatChanged holds the relays' state to
// what a heartbeat commits: after one agent's checkpoint changes on two
// relays, the relays' files and that agent's file are rewritten, no other
// agent's; and what is saved loads back the same.
func TestStoreRewritesOnlyTheAgentsThatChanged(t *testing.T) {
	m := newMesh(t, 50, 2)
	m.read(t)
	path := filepath.Join(t.TempDir(), "relays.json")
	s, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range m.relays {
		*s.Held(p.rel) = *m.held[i]
	}
	if _, err := s.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.All(), s.All()) {
		t.Fatalf("loaded back %+v\nsaved %+v", again.All()[0], s.All()[0])
	}
	// Save writes only files whose bytes change (statefile.Rewrite), so
	// the files whose bytes changed are the files written.
	names := func() map[string]string {
		out := map[string]string{}
		entries, _ := os.ReadDir(statefile.Dir(path))
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(statefile.Dir(path), e.Name()))
			out[e.Name()] = string(data)
		}
		return out
	}
	if got := len(names()); got != 52 {
		t.Fatalf("%d files for 2 relays and 50 agents, want 52", got)
	}
	before := names()
	a := m.agents[3]
	a.size++
	for _, p := range m.relays {
		p.add(t, a.entry(t))
	}
	m.read(t)
	for i, p := range m.relays {
		*again.Held(p.rel) = *m.held[i]
	}
	if changed, err := again.Save(); err != nil || !changed {
		t.Fatalf("save: %v, changed %v", err, changed)
	}
	rewritten := 0
	for name, data := range names() {
		if before[name] != data {
			rewritten++
		}
	}
	if rewritten != 3 {
		t.Fatalf("%d files rewritten after one agent changed on two relays, want 3 (the relays' and the agent's)", rewritten)
	}
	if changed, _ := again.Save(); changed {
		t.Fatal("a save with nothing new rewrote a file")
	}
}

// TestForgiveKeepsTheLastResolvedFaults forgives a relay faulted time
// after time: each fault is kept with its evidence and the time it was
// forgiven, the last KeepResolved of them, oldest first, and they load
// back as saved; a relay not faulted is not forgiven, and its file is
// left as it was.
func TestForgiveKeepsTheLastResolvedFaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relays.json")
	s, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	r := Relay{URL: "https://relay.example/", Key: "relay.example+01234567+AQ=="}
	east := time.FixedZone("east", 3*3600)
	start := time.Date(2026, 3, 15, 12, 0, 0, 0, east)
	const faults = KeepResolved + 4
	for i := range faults {
		h := s.Held(r)
		h.Checkpoint, h.Size, h.Read = "a checkpoint", int64(i+1), int64(i+1)
		h.Fault = &Fault{Kind: FaultFork, Detail: fmt.Sprintf("fault %d", i), At: start.Add(time.Duration(i) * time.Hour),
			Checkpoints: []string{fmt.Sprintf("checkpoint %d\n", i), "another\n"}}
		if f := s.Forgive(r, start.Add(time.Duration(i)*time.Hour+time.Minute)); f == nil || f.Detail != fmt.Sprintf("fault %d", i) {
			t.Fatalf("forgive %d: %+v", i, f)
		}
		if h := s.Held(r); h.Fault != nil || h.Checkpoint != "" || h.Size != 0 || h.Read != 0 {
			t.Fatalf("forgiven %d, the relay is still held: %+v", i, h)
		}
	}
	if _, err := s.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	got := again.Held(r).Resolved
	if len(got) != KeepResolved {
		t.Fatalf("%d faults forgiven, %d kept, want %d", faults, len(got), KeepResolved)
	}
	for i, f := range got {
		n := faults - KeepResolved + i
		at := start.Add(time.Duration(n) * time.Hour)
		if f.Detail != fmt.Sprintf("fault %d", n) || f.Kind != FaultFork || !f.At.Equal(at) || f.At.Location() != time.UTC ||
			!f.Forgiven.Equal(at.Add(time.Minute)) || f.Forgiven.Location() != time.UTC ||
			!reflect.DeepEqual(f.Checkpoints, []string{fmt.Sprintf("checkpoint %d\n", n), "another\n"}) {
			t.Fatalf("resolved fault %d: %+v, want fault %d forgiven at %s with its checkpoints", i, f, n, at.Add(time.Minute))
		}
	}
	if f := again.Forgive(r, start); f != nil {
		t.Fatalf("a relay not faulted was forgiven: %+v", f)
	}
	if f := again.Forgive(Relay{URL: r.URL, Key: "another key"}, start); f != nil {
		t.Fatalf("a relay held under another key was forgiven: %+v", f)
	}
	if changed, err := again.Save(); err != nil || changed {
		t.Fatalf("a save after forgiving nothing: %v, changed %v", err, changed)
	}
}

// TestNewKeyKeepsTheRelaysForgivenFaults: a relay whose key changes in
// relays.list starts afresh, its tree and listings dropped, and keeps
// the faults its operator forgave, which are the history of its URL.
func TestNewKeyKeepsTheRelaysForgivenFaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relays.json")
	s, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	r := Relay{URL: "https://relay.example/", Key: "relay.example+01234567+AQ=="}
	at := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	h := s.Held(r)
	h.Fault = &Fault{Kind: FaultAltered, Detail: "tile/entries/000: altered", At: at, Checkpoints: []string{"checkpoint\n"}}
	if s.Forgive(r, at.Add(time.Hour)) == nil {
		t.Fatal("the faulted relay was not forgiven")
	}
	h = s.Held(r)
	h.Checkpoint, h.Size, h.Read = "checkpoint\n", 5, 5
	h.Agents = map[string]Listed{"https://agent.example/": {Size: 2, Root: "AA==", Seen: at}}
	if _, err := s.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	rekeyed := again.Held(Relay{URL: r.URL, Key: "relay.example+89abcdef+AQ=="})
	if rekeyed.Checkpoint != "" || rekeyed.Size != 0 || len(rekeyed.Agents) != 0 {
		t.Fatalf("under a new key the relay is not read afresh: %+v", rekeyed)
	}
	if len(rekeyed.Resolved) != 1 || rekeyed.Resolved[0].Detail != "tile/entries/000: altered" || !rekeyed.Resolved[0].Forgiven.Equal(at.Add(time.Hour)) {
		t.Fatalf("under a new key the relay's forgiven faults are %+v", rekeyed.Resolved)
	}
}
