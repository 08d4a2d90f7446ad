package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

const (
	peerA = "https://a.example/traces/"
	peerB = "https://b.example/traces/"
)

// twoPeers saves a state of two peers, each with a hash seen from it, and
// returns its path.
func twoPeers(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "polling-cursors.json")
	s := New()
	s.Cursor(peerA).LastSeenSeq = 3
	s.Cursor(peerB).LastSeenSeq = 5
	s.MarkSeenFrom(peerA, "sha256:a1", loadTime)
	s.MarkSeenFrom(peerB, "sha256:b1", loadTime)
	if _, err := s.Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	return p
}

// countReads counts the reads of each state file until the test ends.
func countReads(t *testing.T) func(path string) int {
	var mu sync.Mutex
	reads := map[string]int{}
	t.Cleanup(statefile.SetReadHook(func(p string) {
		mu.Lock()
		reads[p]++
		mu.Unlock()
	}))
	return func(p string) int {
		mu.Lock()
		defer mu.Unlock()
		return reads[p]
	}
}

func seenFileOf(p, url string) string {
	return statefile.PeerPath(SeenPath(p), url)
}

func TestSeenHashesAreReadOnlyForThePeerAskedAbout(t *testing.T) {
	p := twoPeers(t)
	reads := countReads(t)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if reads(seenFileOf(p, peerA)) != 0 || reads(seenFileOf(p, peerB)) != 0 {
		t.Fatal("Load read the peers' seen hashes")
	}
	if !s.SeenFrom(peerA, "sha256:a1") || s.SeenFrom(peerA, "sha256:b1") {
		t.Fatal("peer a's hashes wrong after reading them")
	}
	if reads(seenFileOf(p, peerA)) != 1 || reads(seenFileOf(p, peerB)) != 0 {
		t.Fatalf("reads: a %d, b %d; want a once and b never", reads(seenFileOf(p, peerA)), reads(seenFileOf(p, peerB)))
	}
	if changed, err := s.Save(p, time.Time{}); err != nil || changed {
		t.Fatalf("save of nothing new: changed=%v err=%v", changed, err)
	}
	s.MarkSeenFrom(peerB, "sha256:b2", loadTime)
	if changed, err := s.Save(p, time.Time{}); err != nil || !changed {
		t.Fatalf("save of a new hash: changed=%v err=%v", changed, err)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []manifest.Hash{"sha256:b1", "sha256:b2"} {
		if !back.SeenFrom(peerB, h) {
			t.Errorf("%s not seen from b after save", h)
		}
	}
	if !back.SeenFrom(peerA, "sha256:a1") {
		t.Error("a's hash lost by a save that never read it")
	}
}

func TestSeenFileReadLateDropsEvictedHashes(t *testing.T) {
	p := twoPeers(t)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	s.EvictSeen(loadTime.Add(SeenRetention + time.Second))
	if s.SeenFrom(peerA, "sha256:a1") {
		t.Fatal("a hash older than 90 days is still seen when its file is read after EvictSeen")
	}
	if _, err := s.Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(seenFileOf(p, peerA)); !os.IsNotExist(err) {
		t.Errorf("a's seen file holds nothing but is still there: %v", err)
	}
	if _, err := os.Stat(seenFileOf(p, peerB)); err != nil {
		t.Errorf("b's seen file, never read, is gone: %v", err)
	}
}

func TestOldPeerFilesWithSeenHashesMigrate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "polling-cursors.json")
	old := `{"url": "` + peerA + `", "cursor": {"last_seen_seq": 3}, "seen_hashes": {"sha256:a1": "2026-03-01T12:00:00Z"}}`
	// A crash of the migration after it wrote the seen file, before it
	// rewrote the peer's file: both hold hashes.
	half := `{"url": "` + peerA + `", "seen_hashes": {"sha256:a2": "2026-03-01T12:00:00Z"}}`
	// Both files as a node before shards kept them (statefile.Migrate).
	for path, data := range map[string]string{
		statefile.FlatPeerPath(p, peerA):           old,
		statefile.FlatPeerPath(SeenPath(p), peerA): half,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := s.Save(p, time.Time{}); err != nil || !changed {
		t.Fatalf("migration: changed=%v err=%v", changed, err)
	}
	cursor, _ := statefile.ReadOne(p, statefile.PeerFileName(peerA))
	if strings.Contains(string(cursor), "seen_hashes") {
		t.Errorf("the peer's file still holds seen hashes after the migration:\n%s", cursor)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []manifest.Hash{"sha256:a1", "sha256:a2"} {
		if !back.SeenFrom(peerA, h) {
			t.Errorf("%s lost by the migration", h)
		}
	}
	if back.Cursors[peerA].LastSeenSeq != 3 {
		t.Errorf("cursor after migration: %+v", back.Cursors[peerA])
	}
}

func TestCorruptSeenFileCountsAsSeenAndIsNotWrittenOver(t *testing.T) {
	p := twoPeers(t)
	bad := []byte(`{"url": "` + peerA + `", "seen_hashes": {"sha256:a1": "yesterday"}}`)
	if _, err := statefile.WriteSome(SeenPath(p), map[string][]byte{statefile.PeerFileName(peerA): bad}, nil); err != nil {
		t.Fatal(err)
	}
	s, err := Load(p)
	if err != nil {
		t.Fatalf("load reads no seen file, so a corrupt one cannot stop it: %v", err)
	}
	if !s.SeenFrom(peerA, "sha256:new") {
		t.Error("a hash of a peer whose seen file is corrupt counts as new: it would be fetched again")
	}
	s.MarkSeenFrom(peerA, "sha256:new", loadTime)
	var ce *statefile.CorruptError
	if _, err := s.Save(p, time.Time{}); !errors.As(err, &ce) || !errors.As(s.Err(), &ce) {
		t.Fatalf("save = %v, Err = %v; want a *statefile.CorruptError", err, s.Err())
	}
	if got, _ := statefile.ReadOne(SeenPath(p), statefile.PeerFileName(peerA)); string(got) != string(bad) {
		t.Errorf("the corrupt file was changed to %s", got)
	}
}

func TestRenameMovesSeenHashesNotReadYet(t *testing.T) {
	p := twoPeers(t)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	const to = "https://a.example/moved/"
	if !s.Rename(peerA, to) {
		t.Fatal("rename refused")
	}
	if _, err := s.Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !back.SeenFrom(to, "sha256:a1") {
		t.Error("the renamed peer's hash is not seen from its new URL")
	}
	if _, err := os.Stat(seenFileOf(p, peerA)); !os.IsNotExist(err) {
		t.Errorf("the old URL's seen file is still there: %v", err)
	}
}

func TestForgetSeenReachesFilesNotReadYet(t *testing.T) {
	p := twoPeers(t)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	delete(s.Cursors, peerB)
	s.ForgetSeen([]manifest.Hash{"sha256:b1"})
	if _, err := s.Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if back.Seen("sha256:b1") || !back.Seen("sha256:a1") {
		t.Errorf("after forgetting b's hash: b1 seen %v, a1 seen %v; want false, true", back.Seen("sha256:b1"), back.Seen("sha256:a1"))
	}
}

// TestAForgottenPeersHashesAreSeenFromNoOne: a peer that loses its cursor
// (a learned peer forgotten) takes the hashes seen from it alone with it.
// Kept as seen from no peer, they counted as seen from every peer, so a
// squatter's files hid the real agent's same bytes for 90 days. A hash
// another peer listed too stays that peer's.
func TestAForgottenPeersHashesAreSeenFromNoOne(t *testing.T) {
	p := twoPeers(t)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	s.MarkSeenFrom(peerB, "sha256:a1", loadTime)
	if _, err := s.Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if s, err = Load(p); err != nil {
		t.Fatal(err)
	}
	delete(s.Cursors, peerB) // forgotten, its seen file not read
	if _, err := s.Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	const peerC = "https://c.example/traces/"
	for _, url := range []string{peerA, peerB, peerC} {
		if back.SeenFrom(url, "sha256:b1") {
			t.Errorf("b1, seen only from the forgotten peer, is seen from %s", url)
		}
	}
	if !back.SeenFrom(peerA, "sha256:a1") || back.SeenFrom(peerC, "sha256:a1") {
		t.Errorf("a1, seen from a and the forgotten b: from a %v, from c %v; want true, false",
			back.SeenFrom(peerA, "sha256:a1"), back.SeenFrom(peerC, "sha256:a1"))
	}
	all, err := LoadAll(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := all.SeenHashes["sha256:b1"]; ok || len(all.SeenHashes) != 1 {
		t.Errorf("every file read, the state holds %v; want a1 only", all.SeenHashes)
	}
}
