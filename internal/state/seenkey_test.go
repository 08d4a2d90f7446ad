package state

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// withSum returns a well-formed hash whose first 16 hex digits are sum,
// the rest filled with the hex digit fill, so that two of one sum are
// different files with the same fingerprint.
func withSum(sum string, fill string) manifest.Hash {
	return manifest.Hash("sha256:" + sum + strings.Repeat(fill, 48))
}

// savedState saves a state of peers a and b, with fill run on it first,
// and returns its path.
func savedState(t *testing.T, fill func(s *State)) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "polling-cursors.json")
	s := New()
	s.Cursor(peerA).LastSeenSeq = 1
	s.Cursor(peerB).LastSeenSeq = 1
	fill(s)
	if _, err := s.Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustLoad(t *testing.T, p string) *State {
	t.Helper()
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readSeenOf(t *testing.T, p, url string) string {
	t.Helper()
	data, err := statefile.ReadOne(SeenPath(p), statefile.PeerFileName(url))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestAPeersSeenFileKeepsFingerprintsOfItsHashes(t *testing.T) {
	h := manifest.HashBytes([]byte("a trace"))
	p := savedState(t, func(s *State) {
		s.MarkSeenFrom(peerA, h, loadTime)
		s.MarkSeenFrom(peerA, "sha256:a1", loadTime) // not a hash: kept whole
	})
	data := readSeenOf(t, p, peerA)
	sum := strings.TrimPrefix(string(h), "sha256:")[:16]
	if strings.Contains(data, string(h)) || !strings.Contains(data, `"`+sum+`"`) || !strings.Contains(data, `"sha256:a1"`) {
		t.Errorf("a's seen file, want the fingerprint %s and sha256:a1 whole:\n%s", sum, data)
	}
	back := mustLoad(t, p)
	if !back.SeenFrom(peerA, h) || !back.SeenFrom(peerA, "sha256:a1") || back.SeenFrom(peerA, manifest.HashBytes([]byte("another"))) {
		t.Errorf("from a: %s seen %v, sha256:a1 seen %v, another seen %v; want true, true, false",
			h, back.SeenFrom(peerA, h), back.SeenFrom(peerA, "sha256:a1"), back.SeenFrom(peerA, manifest.HashBytes([]byte("another"))))
	}
}

// TestAnOlderSeenFileReadsAsItsFingerprintsAndKeepsItsBytes: a seen file
// an older node wrote, with whole hashes, gives the same answers, is left
// byte for byte by a save that changes nothing (the upgrade commits
// nothing), and is written in the new form, its times exact, once what it
// holds changes.
func TestAnOlderSeenFileReadsAsItsFingerprintsAndKeepsItsBytes(t *testing.T) {
	h1, h2 := manifest.HashBytes([]byte("one")), manifest.HashBytes([]byte("two"))
	at := loadTime.Add(123456789 * time.Nanosecond)
	p := savedState(t, func(*State) {})
	older := `{
  "url": "` + peerA + `",
  "seen_hashes": {
    "` + string(h1) + `": "` + at.Format(time.RFC3339Nano) + `"
  }
}
`
	if _, err := statefile.WriteSome(SeenPath(p), map[string][]byte{statefile.PeerFileName(peerA): []byte(older)}, nil); err != nil {
		t.Fatal(err)
	}
	s := mustLoad(t, p)
	if !s.SeenFrom(peerA, h1) || s.SeenFrom(peerA, h2) || s.SeenFrom(peerB, h1) {
		t.Fatalf("older file: h1 from a %v, h2 from a %v, h1 from b %v; want true, false, false",
			s.SeenFrom(peerA, h1), s.SeenFrom(peerA, h2), s.SeenFrom(peerB, h1))
	}
	if changed, err := s.Save(p, time.Time{}); err != nil || changed {
		t.Fatalf("save of nothing new over an older file: changed=%v err=%v", changed, err)
	}
	if got := readSeenOf(t, p, peerA); got != older {
		t.Fatalf("the older file was rewritten though nothing changed:\n%s", got)
	}
	if all, err := LoadAll(p); err != nil || len(all.SeenHashes) != 1 {
		t.Fatalf("LoadAll of an older file: %v, %v", all, err)
	}
	s.MarkSeenFrom(peerA, h2, loadTime.Add(time.Hour))
	if _, err := s.Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if got := readSeenOf(t, p, peerA); strings.Contains(got, string(h1)) || strings.Contains(got, string(h2)) {
		t.Errorf("changed, the file still holds whole hashes:\n%s", got)
	}
	back, err := LoadAll(p)
	if err != nil {
		t.Fatal(err)
	}
	if !back.SeenFrom(peerA, h1) || !back.SeenFrom(peerA, h2) {
		t.Errorf("after the rewrite: h1 %v, h2 %v; want both seen from a", back.SeenFrom(peerA, h1), back.SeenFrom(peerA, h2))
	}
	if got := back.SeenHashes[seenKey(h1)]; !got.Equal(at) {
		t.Errorf("h1 first seen %v after the rewrite, want %v", got, at)
	}
}

// TestASharedFingerprintHidesAFileOnlyFromThePeerThatListedTheFirst: two
// files whose hashes share their first 64 bits are one to the peer that
// listed the first (the cost of a fingerprint), and nothing to any other
// peer, after a rename or once that peer is forgotten; the hashes seen
// from no peer in particular match whole only.
func TestASharedFingerprintHidesAFileOnlyFromThePeerThatListedTheFirst(t *testing.T) {
	const peerC, peerD = "https://c.example/traces/", "https://d.example/traces/"
	listed, twin := withSum("0123456789abcdef", "1"), withSum("0123456789abcdef", "2")
	nobodys, nobodysTwin := withSum("fedcba9876543210", "3"), withSum("fedcba9876543210", "4")
	p := savedState(t, func(s *State) {
		s.MarkSeenFrom(peerA, listed, loadTime)
		s.MarkSeen(nobodys, loadTime)
	})
	s := mustLoad(t, p)
	if !s.SeenFrom(peerA, twin) {
		t.Error("the twin of a's file is not skipped for a: the seen file keeps more than its fingerprint")
	}
	for _, url := range []string{peerB, peerD} {
		if s.SeenFrom(url, twin) || s.SeenFrom(url, listed) {
			t.Errorf("a's file or its twin counts as seen from %s", url)
		}
		if !s.SeenFrom(url, nobodys) || s.SeenFrom(url, nobodysTwin) {
			t.Errorf("from %s: the hash seen from no peer %v, its twin %v; want true, false",
				url, s.SeenFrom(url, nobodys), s.SeenFrom(url, nobodysTwin))
		}
	}
	if !s.Rename(peerA, peerC) || !s.SeenFrom(peerC, twin) || s.SeenFrom(peerB, twin) {
		t.Errorf("renamed to c: twin from c %v, from b %v; want true, false", s.SeenFrom(peerC, twin), s.SeenFrom(peerB, twin))
	}
	delete(s.Cursors, peerC) // forgotten
	if _, err := s.Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	back, err := LoadAll(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{peerA, peerB, peerC, peerD} {
		if back.SeenFrom(url, listed) || back.SeenFrom(url, twin) {
			t.Errorf("the forgotten peer's file or its twin counts as seen from %s", url)
		}
	}
	if len(back.SeenHashes) != 1 {
		t.Errorf("every file read, the state holds %v; want the hash seen from no peer only", back.SeenHashes)
	}
}

func FuzzSeenFile(f *testing.F) {
	h := string(manifest.HashBytes([]byte("x")))
	for _, seed := range []string{
		`{"url":"https://a.example/","seen_hashes":{"0123456789abcdef":"2026-03-01T12:00:00Z"}}`,
		`{"url":"https://a.example/","seen_hashes":{"` + h + `":"2026-03-01T12:00:00.5+02:00"}}`,
		`{"url":"https://a.example/","seen_hashes":{"` + h + `":"2026-03-02T12:00:00Z","` + h[7:23] + `":"2026-03-01T12:00:00Z"}}`,
		`{"url":"https://a.example/","seen_hashes":{"sha256:a1":"2026-03-01T12:00:00Z","SHA256:AB":"2026-03-01T12:00:00Z"}}`,
		`{"url":"https://a.example/","seen_hashes":null}`,
		`{"seen_hashes":{}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _, err := decodeSeenFile(data)
		if err != nil {
			return
		}
		files := map[string][]byte{}
		if err := put(files, "a", got); err != nil {
			t.Fatalf("encode decoded seen file: %v", err)
		}
		again, older, err := decodeSeenFile(files["a"])
		if err != nil || older {
			t.Fatalf("seen file written does not decode in the new form (older %v): %v\n%s", older, err, files["a"])
		}
		if !holdsSeen(files["a"], got.URL, got.SeenHashes) {
			t.Fatalf("seen file written holds other hashes than it was given:\n%s", files["a"])
		}
		if err := put(files, "b", again); err != nil || !bytes.Equal(files["a"], files["b"]) {
			t.Fatalf("seen file not stable (%v):\n%s\n%s", err, files["a"], files["b"])
		}
	})
}

// TestAHashSeenFromNoPeerBecomesThePeersThatListsIt: a whole hash seen
// from no peer in particular, marked seen from a peer, becomes that
// peer's fingerprint with its first-seen time, as it became the peer's
// whole hash before fingerprints: it is then no longer seen from others.
func TestAHashSeenFromNoPeerBecomesThePeersThatListsIt(t *testing.T) {
	h := manifest.HashBytes([]byte("listed by an older node"))
	p := savedState(t, func(s *State) { s.MarkSeen(h, loadTime) })
	s := mustLoad(t, p)
	if !s.SeenFrom(peerB, h) {
		t.Fatal("setup: a hash seen from no peer is not seen from b")
	}
	s.MarkSeenFrom(peerA, h, loadTime.Add(time.Hour))
	if _, err := s.Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	back, err := LoadAll(p)
	if err != nil {
		t.Fatal(err)
	}
	if !back.SeenFrom(peerA, h) || back.SeenFrom(peerB, h) {
		t.Errorf("listed by a: seen from a %v, from b %v; want true, false", back.SeenFrom(peerA, h), back.SeenFrom(peerB, h))
	}
	if got := back.SeenHashes[seenKey(h)]; len(back.SeenHashes) != 1 || !got.Equal(loadTime) {
		t.Errorf("seen hashes %v; want a's fingerprint only, first seen %v", back.SeenHashes, loadTime)
	}
}
