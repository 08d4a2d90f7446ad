package relay

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
		_, files, _ := statefile.Read(path)
		for name, data := range files {
			out[name] = string(data)
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

// TestStoreSaveWorkFollowsTheAgentsThatChanged counts what a save
// allocates, loaded from the files of a mesh of 20 agents and of one of
// 200 (two relays): with nothing new, and with one agent listed anew,
// the bigger mesh's save allocates no more than the smaller's, since
// only an agent whose listings changed is encoded.
func TestStoreSaveWorkFollowsTheAgentsThatChanged(t *testing.T) {
	allocs := func(agents int) (none, one float64) {
		m := newMesh(t, agents, 2)
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
		if s, err = LoadStore(path); err != nil {
			t.Fatal(err)
		}
		none = testing.AllocsPerRun(5, func() {
			if changed, err := s.Save(); err != nil || changed {
				t.Fatalf("save of nothing new: changed %v, err %v", changed, err)
			}
		})
		h := s.Held(m.relays[0].rel)
		a := m.agents[agents/2].url
		l := h.Agents[a]
		one = testing.AllocsPerRun(5, func() {
			l.Size++
			h.Agents[a] = l
			if changed, err := s.Save(); err != nil || !changed {
				t.Fatalf("save of one agent listed anew: changed %v, err %v", changed, err)
			}
		})
		return none, one
	}
	smallNone, smallOne := allocs(20)
	bigNone, bigOne := allocs(200)
	t.Logf("allocations of a save, nothing new / one agent new: %v / %v at 20 agents, %v / %v at 200", smallNone, smallOne, bigNone, bigOne)
	if bigNone > smallNone+slack || bigOne > smallOne+slack {
		t.Errorf("a save allocated %v times with nothing new and %v with one agent new at 200 agents, against %v and %v at 20: it grows with the mesh",
			bigNone, bigOne, smallNone, smallOne)
	}
}

// TestStoreSaveEqualsEncodingEveryAgent runs generated histories of
// changes to what two relays list of 30 agents (listed anew, pending,
// settled, dropped, a relay no longer read, one forgiven), each saved by
// a store loaded afresh, and checks the files on disk against encoding
// every relay and every agent, as Save did before it encoded only the
// agents whose listings changed.
func TestStoreSaveEqualsEncodingEveryAgent(t *testing.T) {
	relays := []Relay{{URL: "https://r0.example/", Key: "k0"}, {URL: "https://r1.example/", Key: "k1"}}
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 3))
			path := filepath.Join(t.TempDir(), "relays.json")
			now := t0
			for beat := range 30 {
				now = now.Add(30 * time.Minute)
				s, err := LoadStore(path)
				if err != nil {
					t.Fatal(err)
				}
				for range 1 + rng.IntN(6) {
					changeHeld(s, relays, rng, now)
				}
				if _, err := s.Save(); err != nil {
					t.Fatal(err)
				}
				want := encodeEveryAgent(t, s)
				got := map[string]string{}
				_, files, _ := statefile.Read(path)
				for name, data := range files {
					got[name] = string(data)
				}
				if !maps.Equal(got, want) {
					t.Fatalf("heartbeat %d: %d files on disk, %d encoding every agent, or their bytes differ", beat, len(got), len(want))
				}
			}
		})
	}
}

// changeHeld does to what s holds one thing a relay's read, Settle, Keep
// or Forgive may do.
func changeHeld(s *Store, relays []Relay, rng *rand.Rand, now time.Time) {
	r := relays[rng.IntN(len(relays))]
	h := s.Held(r)
	agent := fmt.Sprintf("https://a%02d.example/", rng.IntN(30))
	switch rng.IntN(6) {
	case 0, 1:
		if h.Agents == nil {
			h.Agents = map[string]Listed{}
		}
		h.Agents[agent] = Listed{Size: h.Agents[agent].Size + 1, Root: fmt.Sprint(rng.IntN(3)), Seen: now}
	case 2:
		h.hold(agent, fmt.Sprintf("checkpoint %d\n", rng.IntN(5)), now)
	case 3:
		h.release(agent)
		delete(h.Agents, agent)
	case 4:
		if rng.IntN(4) == 0 {
			s.Keep(relays[:1])
		}
	case 5:
		h.Fault = &Fault{Kind: FaultForged, Detail: "test", At: now}
		s.Forgive(r, now)
	}
}

// encodeEveryAgent is the files Save wrote before it kept unchanged
// agents' files: every relay's and every listed agent's, encoded.
func encodeEveryAgent(t *testing.T, s *Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	agents := map[string]*agentFile{}
	enc := func(name string, v any) {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(data) + "\n"
	}
	for u, h := range s.relay {
		enc(statefile.PeerFileName(u), relayFile{Relay: h.normalized()})
		for a, l := range h.Agents {
			if agents[a] == nil {
				agents[a] = &agentFile{Agent: a}
			}
			if agents[a].Listed == nil {
				agents[a].Listed = map[string]Listed{}
			}
			l.Seen = l.Seen.UTC()
			agents[a].Listed[u] = l
		}
		for a, cp := range h.Pending {
			if agents[a] == nil {
				agents[a] = &agentFile{Agent: a}
			}
			if agents[a].Pending == nil {
				agents[a].Pending = map[string]string{}
			}
			agents[a].Pending[u] = cp
			if seen, ok := h.PendingSeen[a]; ok {
				if agents[a].PendingSeen == nil {
					agents[a].PendingSeen = map[string]time.Time{}
				}
				agents[a].PendingSeen[u] = seen.UTC()
			}
		}
	}
	for a, f := range agents {
		enc(statefile.PeerFileName(a), f)
	}
	return out
}

// TestAgentFileUnderAnotherNameIsMoved loads an agent's relayed state
// from a file not named for the agent (a file name rule that changed):
// the next save writes it under the agent's name and removes the other.
func TestAgentFileUnderAnotherNameIsMoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relays.json")
	dir := statefile.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r, agent := "https://relay.example/", "https://agent.example/"
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(statefile.PeerFileName(r), `{"relay": {"url": "`+r+`", "key": "k"}}`+"\n")
	write("old-name.json", `{"agent": "`+agent+`", "listed": {"`+r+`": {"size": 3, "root": "AAA=", "seen": "2026-03-01T12:00:00Z"}}}`+"\n")
	s, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := s.Save(); err != nil || !changed {
		t.Fatalf("save: changed %v, err %v", changed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "old-name.json")); !os.IsNotExist(err) {
		t.Fatalf("the file under the old name is still there: %v", err)
	}
	back, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if l := back.Held(Relay{URL: r, Key: "k"}).Agents[agent]; l.Size != 3 {
		t.Fatalf("agent loaded back listed %+v, want size 3", l)
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

// TestAgentsOwnFileWinsOverCopiesUnderOtherNames: copies of an agent's
// relayed state under other names never replace its own file, whatever
// order the files are read in, and a save removes every copy.
func TestAgentsOwnFileWinsOverCopiesUnderOtherNames(t *testing.T) {
	r, agent := "https://relay.example/", "https://agent.example/"
	listed := func(size int) string {
		return `{"agent": "` + agent + `", "listed": {"` + r + `": {"size": ` + fmt.Sprint(size) + `, "root": "AAA=", "seen": "2026-03-01T12:00:00Z"}}}` + "\n"
	}
	for i := range 20 {
		path := filepath.Join(t.TempDir(), "relays.json")
		if _, err := statefile.Write(path, map[string][]byte{
			statefile.PeerFileName(r):     []byte(`{"relay": {"url": "` + r + `", "key": "k"}}` + "\n"),
			statefile.PeerFileName(agent): []byte(listed(3)),
			"copy-a.json":                 []byte(listed(1)),
			"copy-b.json":                 []byte(listed(2)),
		}); err != nil {
			t.Fatal(err)
		}
		s, err := LoadStore(path)
		if err != nil {
			t.Fatal(err)
		}
		if l := s.Held(Relay{URL: r, Key: "k"}).Agents[agent]; l.Size != 3 {
			t.Fatalf("round %d: agent listed %+v, want its own file's size 3", i, l)
		}
		if _, err := s.Save(); err != nil {
			t.Fatal(err)
		}
		if names, _ := statefile.Names(path); len(names) != 2 {
			t.Fatalf("round %d: files after the save %v, want the relay's and the agent's", i, names)
		}
	}
}

// TestNewKeyKeepsTheRelaysOpenFaultAsEvidence: an operator who gives a
// faulted relay a new key starts it afresh without erasing its fault: the
// fault, its evidence byte for byte, stays among Resolved with the key it
// was found under, after the faults forgiven before it, and survives a save.
func TestNewKeyKeepsTheRelaysOpenFaultAsEvidence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relays.json")
	s, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	oldKey := "relay.example+01234567+AQ=="
	r := Relay{URL: "https://relay.example/", Key: oldKey}
	at := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	s.Held(r).Fault = &Fault{Kind: FaultAltered, Detail: "first", At: at}
	s.Forgive(r, at.Add(time.Hour))
	open := Fault{Kind: FaultForged, Detail: "forged checkpoint", At: at.Add(2 * time.Hour), Checkpoints: []string{"relay checkpoint\n"}, Agent: "https://agent.example/", Entry: "entry\n"}
	s.Held(r).Fault = &open
	if _, err := s.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	rekeyed := again.Held(Relay{URL: r.URL, Key: "relay.example+89abcdef+AQ=="})
	if rekeyed.Fault != nil {
		t.Fatalf("under a new key the relay is still faulted: %+v", rekeyed.Fault)
	}
	want := open
	want.Key = oldKey
	if len(rekeyed.Resolved) != 2 || rekeyed.Resolved[0].Detail != "first" || !reflect.DeepEqual(rekeyed.Resolved[1], want) {
		t.Fatalf("under a new key the relay's faults are %+v, want the forgiven one, then %+v", rekeyed.Resolved, want)
	}
	if _, err := again.Save(); err != nil {
		t.Fatal(err)
	}
	last, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := last.Held(Relay{URL: r.URL, Key: "relay.example+89abcdef+AQ=="}).Resolved; len(got) != 2 || !reflect.DeepEqual(got[1], want) {
		t.Fatalf("saved and loaded again, the relay's faults are %+v", got)
	}
}

// TestKeepAgentsForgetsTheListingsOfAgentsNoLongerPolled: what the relays
// listed of agents the node no longer polls, and their pending
// checkpoints, are forgotten and the agents' files removed at the save;
// the relays' files and the other agents' are left as they were, and a
// KeepAgents that keeps every agent changes nothing.
func TestKeepAgentsForgetsTheListingsOfAgentsNoLongerPolled(t *testing.T) {
	m := newMesh(t, 5, 2)
	m.read(t)
	path := filepath.Join(t.TempDir(), "relays.json")
	s, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range m.relays {
		*s.Held(p.rel) = *m.held[i]
	}
	unpinned := "https://unpinned.example/mesh/"
	s.Held(m.relays[1].rel).Pending = map[string]string{unpinned: string(m.agents[0].checkpoint(t))}
	if _, err := s.Save(); err != nil {
		t.Fatal(err)
	}
	_, before, err := statefile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 2+5+1 {
		t.Fatalf("setup: %d files for 2 relays and 6 agents", len(before))
	}
	if s, err = LoadStore(path); err != nil {
		t.Fatal(err)
	}
	polled := map[string]bool{m.agents[1].url: true, m.agents[2].url: true, m.agents[4].url: true}
	if got := s.KeepAgents(func(a string) bool { return polled[a] }); got != 3 {
		t.Errorf("KeepAgents forgot %d agents, want 3 (two listed, one pending)", got)
	}
	if changed, err := s.Save(); err != nil || !changed {
		t.Fatalf("save: changed %v, %v", changed, err)
	}
	_, after, err := statefile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{m.agents[0].url, m.agents[3].url, unpinned} {
		if _, ok := after[statefile.PeerFileName(a)]; ok {
			t.Errorf("the file of %s, no longer polled, stays", a)
		}
	}
	if len(after) != 2+3 {
		t.Errorf("%d files left, want the 2 relays' and the 3 polled agents'", len(after))
	}
	for name, data := range after {
		if string(before[name]) != string(data) {
			t.Errorf("%s rewritten", name)
		}
	}
	back, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range back.All() {
		if len(h.Agents) != 3 || len(h.Pending) != 0 {
			t.Errorf("%s holds %d listings and %d pending, want the 3 polled agents' listings", h.URL, len(h.Agents), len(h.Pending))
		}
		for a := range h.Agents {
			if !polled[a] {
				t.Errorf("%s still lists %s", h.URL, a)
			}
		}
	}
	if got := back.KeepAgents(func(a string) bool { return polled[a] }); got != 0 {
		t.Errorf("a second KeepAgents forgot %d agents", got)
	}
	if changed, err := back.Save(); err != nil || changed {
		t.Errorf("a save after forgetting nothing: changed %v, %v", changed, err)
	}
}

// Parts of an agent's file on relay offsetRelay whose times carry an
// offset (+02:00) instead of being in UTC, as an older or hand-edited
// node may have left them.
const (
	offsetRelay   = "https://relay.example/"
	offsetListed  = `"listed": {"` + offsetRelay + `": {"size": 3, "root": "AAA=", "seen": "2026-03-01T14:00:00+02:00"}}`
	offsetPending = `"pending": {"` + offsetRelay + `": "checkpoint\n"}, "pending_seen": {"` + offsetRelay + `": "2026-03-01T15:30:00+02:00"}`
)

// agentWithOffsetTimes writes the relays' state at path: offsetRelay's
// file as Save writes it, and the file of agent holding parts.
func agentWithOffsetTimes(t *testing.T, path, agent string, parts ...string) {
	t.Helper()
	savedRelay(t, path, offsetRelay)
	data := `{"agent": "` + agent + `", ` + strings.Join(parts, ", ") + "}\n"
	if err := os.WriteFile(statefile.FlatFilePath(path, statefile.PeerFileName(agent)), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// savedRelay saves at path the relays' state of relay relayURL alone,
// under the key "k".
func savedRelay(t testing.TB, path, relayURL string) {
	t.Helper()
	s, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Held(Relay{URL: relayURL, Key: "k"})
	if _, err := s.Save(); err != nil {
		t.Fatal(err)
	}
}

// stateFiles reads the files of the relays' state at path, by name.
func stateFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	_, files, err := statefile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestAnAgentsFileWithTimesNotInUTCIsKeptWhenNothingChanged: Save compares
// what a relay lists of an agent with its file by instant. It took a
// listing's `seen` time written with an offset for a change, and wrote
// the agent's file again, the same instants in UTC, at every save that
// loaded it: a commit for nothing. The file is kept, byte for byte,
// whichever of its times carry an offset.
func TestAnAgentsFileWithTimesNotInUTCIsKeptWhenNothingChanged(t *testing.T) {
	const agent = "https://agent.example/"
	for name, parts := range map[string][]string{
		"listed":             {offsetListed},
		"pending":            {offsetPending},
		"listed and pending": {offsetListed, offsetPending},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "relays.json")
			agentWithOffsetTimes(t, path, agent, parts...)
			before := stateFiles(t, path)
			s, err := LoadStore(path)
			if err != nil {
				t.Fatal(err)
			}
			changed, err := s.Save()
			if err != nil {
				t.Fatal(err)
			}
			after := stateFiles(t, path)
			file := statefile.PeerFileName(agent)
			if changed || string(after[file]) != string(before[file]) {
				t.Errorf("a save with nothing new: changed %v, the agent's file\n%s\nwas\n%s", changed, after[file], before[file])
			}
		})
	}
}

// TestAnAgentsFileWithTimesNotInUTCIsRewrittenOnAChange: a real change to
// what a relay holds of such an agent (listed anew, or another checkpoint
// pending) still writes its file, its times then in UTC, the same
// instants where nothing changed.
func TestAnAgentsFileWithTimesNotInUTCIsRewrittenOnAChange(t *testing.T) {
	r, agent := offsetRelay, "https://agent.example/"
	later := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		change func(h *Held)
		want   agentFile
	}{
		{"listed anew", func(h *Held) { h.Agents[agent] = Listed{Size: 4, Root: "AQE=", Seen: later} }, agentFile{
			Agent:       agent,
			Listed:      map[string]Listed{r: {Size: 4, Root: "AQE=", Seen: later}},
			Pending:     map[string]string{r: "checkpoint\n"},
			PendingSeen: map[string]time.Time{r: time.Date(2026, 3, 1, 13, 30, 0, 0, time.UTC)},
		}},
		{"another checkpoint pending", func(h *Held) { h.hold(agent, "another checkpoint\n", later) }, agentFile{
			Agent:       agent,
			Listed:      map[string]Listed{r: {Size: 3, Root: "AAA=", Seen: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}},
			Pending:     map[string]string{r: "another checkpoint\n"},
			PendingSeen: map[string]time.Time{r: later},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "relays.json")
			agentWithOffsetTimes(t, path, agent, offsetListed, offsetPending)
			s, err := LoadStore(path)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(s.Held(Relay{URL: r, Key: "k"}))
			if changed, err := s.Save(); err != nil || !changed {
				t.Fatalf("save of a change: changed %v, err %v", changed, err)
			}
			files := stateFiles(t, path)
			want, err := json.MarshalIndent(tc.want, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if got := files[statefile.PeerFileName(agent)]; string(got) != string(want)+"\n" {
				t.Errorf("the agent's file\n%s\nwant\n%s", got, want)
			}
		})
	}
}
