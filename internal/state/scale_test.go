package state

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// mesh is a state of n peers as a day of quiet polling leaves them: each
// polled, a tenth with news yesterday.
func mesh(n int) *State {
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := New()
	for i := range n {
		c := s.Cursor(fmt.Sprintf("https://a%06d.example/mesh/", i))
		c.Agent = fmt.Sprintf("a%06d", i)
		pollQuiet(c, t0, 0)
		if i%10 == 0 {
			pollQuiet(c, t0.Add(time.Duration(i%48)*sched.Heartbeat), 1)
		}
		c.LastSeenSeq = manifest.Seq(1 + i%10)
		pollQuiet(c, t0.Add(24*time.Hour), 0)
	}
	return s
}

// BenchmarkLoadSaveUnchanged is a heartbeat's state work when its polls
// changed nothing: a load and a save of the cursors.
func BenchmarkLoadSaveUnchanged(b *testing.B) {
	p := filepath.Join(b.TempDir(), "polling-cursors.json")
	if _, err := mesh(2000).Save(p, time.Time{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		s, err := Load(p)
		if err != nil {
			b.Fatal(err)
		}
		if changed, err := s.Save(p, time.Time{}); err != nil || changed {
			b.Fatalf("save: changed %v, err %v", changed, err)
		}
	}
}

// TestSaveEncodesOnlyTheCursorsThatChanged polls 3 of 1,000 peers, one
// with news, one failing and one quiet whose poll times alone move, and
// saves: only the first two cursors are encoded and written, the third's
// file is kept without being encoded, and a save after it encodes nothing.
func TestSaveEncodesOnlyTheCursorsThatChanged(t *testing.T) {
	p := writeMesh(t, 1000)
	var encoded, written []string
	encodeHook = func(name string) { encoded = append(encoded, name) }
	t.Cleanup(func() { encodeHook = nil })
	var mu sync.Mutex // files are written several at once
	t.Cleanup(statefile.SetWriteHook(func(path string, _ int) {
		mu.Lock()
		defer mu.Unlock()
		written = append(written, filepath.Base(path))
	}))

	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	news, failing, quiet := "https://a000001.example/mesh/", "https://a000002.example/mesh/", "https://a000003.example/mesh/"
	pollQuiet(s.Cursor(news), now, 1)
	s.Cursor(news).LastSeenSeq++
	s.Cursor(failing).RecordFailure(now, "timeout")
	pollQuiet(s.Cursor(quiet), now, 0)
	if changed, err := s.Save(p, time.Time{}); err != nil || !changed {
		t.Fatalf("save: changed %v, err %v", changed, err)
	}
	want := []string{statefile.PeerFileName(news), statefile.PeerFileName(failing)}
	wantWritten := []string{filepath.Base(statefile.PeerPath(p, news)), filepath.Base(statefile.PeerPath(p, failing))}
	slices.Sort(want)
	slices.Sort(wantWritten)
	slices.Sort(encoded)
	slices.Sort(written)
	if !slices.Equal(encoded, want) || !slices.Equal(written, wantWritten) {
		t.Fatalf("encoded %v, wrote %v; want %v, written as %v", encoded, written, want, wantWritten)
	}
	encoded = nil
	if changed, err := s.Save(p, time.Time{}); err != nil || changed || len(encoded) != 0 {
		t.Fatalf("second save: changed %v, err %v, encoded %d files; want nothing", changed, err, len(encoded))
	}
}

// writeMesh writes mesh(n)'s files, without a save's fsyncs, and returns
// the path of its state.
func writeMesh(t *testing.T, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "polling-cursors.json")
	files, err := mesh(n).Files(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(statefile.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(statefile.Dir(p), name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// TestIncrementalSaveEqualsEncodingEveryCursor runs generated histories
// of heartbeats over a small mesh, each a load, changes to a few cursors
// (polls with and without news, failures, a peer gone, a new one, one
// renamed or dropped, gaps, poll times alone) and a save, and checks the
// files on disk against what encoding every cursor gives, as Save did
// before it kept the files of the cursors that did not change: the
// same files, the same bytes, the same answer to whether any changed.
func TestIncrementalSaveEqualsEncodingEveryCursor(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			p := writeMesh(t, 30)
			// A heartbeat moves files of older names first (statefile.Migrate).
			if _, err := statefile.Migrate(p); err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
			for beat := range 16 {
				now = now.Add(sched.Heartbeat)
				s, err := Load(p)
				if err != nil {
					t.Fatal(err)
				}
				change(s, rng, now, beat)
				var timesBefore time.Time
				if rng.IntN(4) == 0 {
					timesBefore = now.Add(-PollTimesEvery)
				}
				before := readDir(t, statefile.Dir(p))
				want := encodeEvery(t, p, before, s, timesBefore)
				changed, err := s.Save(p, timesBefore)
				if err != nil {
					t.Fatal(err)
				}
				after := readDir(t, statefile.Dir(p))
				if !maps.Equal(after, want) {
					t.Fatalf("heartbeat %d: files differ from encoding every cursor:\n%s", beat, diffFiles(after, want))
				}
				if wantChanged := !maps.Equal(before, want); changed != wantChanged {
					t.Fatalf("heartbeat %d: changed %v, want %v", beat, changed, wantChanged)
				}
			}
		})
	}
}

// change does to a few of s's cursors what a heartbeat may do.
func change(s *State, rng *rand.Rand, now time.Time, beat int) {
	urls := s.SortedURLs()
	for range 1 + rng.IntN(5) {
		url := urls[rng.IntN(len(urls))]
		c := s.Cursors[url]
		if c == nil {
			continue
		}
		switch rng.IntN(9) {
		case 0:
			pollQuiet(c, now, 1+rng.IntN(3))
			c.LastSeenSeq += 2
		case 1:
			pollQuiet(c, now, 0)
		case 2:
			c.LastPolled = now
			c.RecordFailure(now, "timeout")
		case 3:
			c.RecordGone(now, "404")
		case 4:
			c.Gaps = append(c.Gaps, Range{From: 3, To: 4}, Range{From: 1, To: 1})
		case 5:
			s.Cursor(fmt.Sprintf("https://new%d.example/", beat)).LastPolled = now
		case 6:
			s.Rename(url, url+"moved/")
		case 7:
			delete(s.Cursors, url)
		case 8:
			c.LastPolled, c.LastSuccess = now, now
		}
	}
}

// encodeEvery is the cursors' files as Save wrote them before it kept
// unchanged ones: every cursor encoded, with the poll times of the file
// before (before, by name) when only those changed and timesBefore does
// not reach them, compared as JSON.
func encodeEvery(t *testing.T, p string, before map[string]string, s *State, timesBefore time.Time) map[string]string {
	t.Helper()
	want := map[string]string{}
	for url, c := range s.Cursors {
		n := c.normalized()
		var old peerFile
		if data, ok := before[statefile.PeerFileName(url)]; ok {
			if err := json.Unmarshal([]byte(data), &old); err != nil {
				t.Fatal(err)
			}
		}
		if o := old.Cursor; o != nil && (timesBefore.IsZero() || !o.LastPolled.Before(timesBefore)) {
			kept := *n
			kept.LastPolled, kept.LastSuccess, kept.NextPoll = o.LastPolled, o.LastSuccess, o.NextPoll
			if x, y := mustJSON(t, &kept), mustJSON(t, o.normalized()); x == y {
				n = &kept
			}
		}
		data, err := json.MarshalIndent(peerFile{URL: url, Cursor: n}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want[statefile.PeerFileName(url)] = string(data) + "\n"
	}
	return want
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func diffFiles(got, want map[string]string) string {
	var b strings.Builder
	for name := range maps.Keys(got) {
		if got[name] != want[name] {
			fmt.Fprintf(&b, "%s:\n got %s\nwant %s\n", name, got[name], want[name])
		}
	}
	for name := range maps.Keys(want) {
		if _, ok := got[name]; !ok {
			fmt.Fprintf(&b, "%s missing\n", name)
		}
	}
	return b.String()
}
