package state

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

var update = flag.Bool("update", false, "rewrite golden files")

var loadTime = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return loadTime }

func TestLoadMissingFileGivesEmptyState(t *testing.T) {
	s, err := Load(filepath.Join(t.TempDir(), "mesh-state", "polling-cursors.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cursors) != 0 || len(s.SeenHashes) != 0 || s.Cursors == nil || s.SeenHashes == nil {
		t.Fatalf("got %+v, want empty non-nil maps", s)
	}
}

func TestLoadReadsSeedShapes(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		wantSeq   map[string]manifest.Seq
		wantSeen  map[manifest.Hash]time.Time
		wantFails int
	}{
		{
			name: "seen_hashes as a list counts them first seen at load time",
			file: "seed000-list.json",
			wantSeq: map[string]manifest.Seq{
				"https://jolt37.hive37.ai/traces/":     42,
				"https://abernath37.hive37.ai/traces/": 107,
			},
			wantSeen: map[manifest.Hash]time.Time{"sha256:abc123...": loadTime, "sha256:def456...": loadTime},
		},
		{
			name:      "seen_hashes as a map keeps first-seen times and breaker fields",
			file:      "seed000-breaker.json",
			wantSeq:   map[string]manifest.Seq{"https://slow-agent.example.com/traces/": 12},
			wantSeen:  map[manifest.Hash]time.Time{"sha256:abc123": time.Date(2026, 2, 23, 16, 0, 0, 0, time.UTC), "sha256:def456": time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)},
			wantFails: 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := load(filepath.Join("testdata", tt.file), fixedNow)
			if err != nil {
				t.Fatal(err)
			}
			for url, seq := range tt.wantSeq {
				if c := s.Cursors[url]; c == nil || c.LastSeenSeq != seq {
					t.Errorf("cursor %s = %+v, want last_seen_seq %d", url, c, seq)
				}
			}
			if len(s.SeenHashes) != len(tt.wantSeen) {
				t.Errorf("seen %d hashes, want %d", len(s.SeenHashes), len(tt.wantSeen))
			}
			for h, when := range tt.wantSeen {
				if got := s.SeenHashes[h]; !got.Equal(when) {
					t.Errorf("seen[%s] = %v, want %v", h, got, when)
				}
			}
			fails := 0
			for _, c := range s.Cursors {
				fails += c.FailureCount
			}
			if fails != tt.wantFails {
				t.Errorf("failure counts sum to %d, want %d", fails, tt.wantFails)
			}
		})
	}
}

func TestLoadCorruptFileNamesPositionAndLeavesFile(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"truncated write", "{\n  \"cursors\": {\n    \"x\": {\"last_seen_seq\": 4", "polling-cursors.json:3:"},
		{"wrong type", "{\n  \"cursors\": {\"x\": {\"last_seen_seq\": \"four\"}}\n}\n", "polling-cursors.json:2:"},
		{"seen_hashes of numbers", "{\"seen_hashes\": [1, 2]}", "seen_hashes"},
		{"not json", "cursors: yes\n", "polling-cursors.json:1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "polling-cursors.json")
			if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(p)
			var ce *statefile.CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *statefile.CorruptError", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "left untouched") {
				t.Errorf("err = %q, want it to contain %q and say the file is untouched", err, tt.want)
			}
			got, _ := os.ReadFile(p)
			if string(got) != tt.content {
				t.Errorf("file changed to %q", got)
			}
		})
	}
}

func TestSaveIsDeterministicAndSkipsUnchangedBytes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mesh-state", "polling-cursors.json")
	s := sampleState()
	changed, err := s.Save(p, time.Time{})
	if err != nil || !changed {
		t.Fatalf("first save: changed=%v err=%v", changed, err)
	}
	golden(t, "split.golden.txt", splitText(t, p))

	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	changed, err = back.Save(p, time.Time{})
	if err != nil || changed {
		t.Fatalf("resave of loaded state: changed=%v err=%v, want unchanged", changed, err)
	}
	back.Cursor("https://new.example/traces/").LastSeenSeq = 1
	if changed, err = back.Save(p, time.Time{}); err != nil || !changed {
		t.Fatalf("save after change: changed=%v err=%v", changed, err)
	}
}

// splitText is every file of the split state at p, each after its name.
func splitText(t *testing.T, p string) []byte {
	t.Helper()
	legacy, files, err := statefile.Read(p)
	if err != nil || legacy != nil {
		t.Fatalf("read split: legacy %q, err %v", legacy, err)
	}
	var b strings.Builder
	for _, name := range sortedNames(files) {
		b.WriteString("== " + name + "\n")
		b.Write(files[name])
	}
	_, seen, err := statefile.Read(SeenPath(p))
	if err != nil {
		t.Fatalf("read seen files: %v", err)
	}
	for _, name := range sortedNames(seen) {
		b.WriteString("== " + filepath.Base(statefile.Dir(SeenPath(p))) + "/" + name + "\n")
		b.Write(seen[name])
	}
	return []byte(b.String())
}

func TestOnePeerChangedRewritesThatPeerOnly(t *testing.T) {
	p := filepath.Join(t.TempDir(), "polling-cursors.json")
	if _, err := sampleState().Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	before := readTree(t, p)
	s, _ := Load(p)
	s.MarkSeenFrom("https://learned.example/", "sha256:ccc", loadTime)
	if _, err := s.Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	after := readTree(t, p)
	var differ []string
	for name, data := range after {
		if before[name] != data {
			differ = append(differ, name)
		}
	}
	if want := "seen/" + statefile.PeerFileName("https://learned.example/"); len(differ) != 1 || differ[0] != want {
		t.Fatalf("files changed: %v; want only %s", differ, want)
	}
}

// readTree is readDir of the cursors' directory and, under "seen/", of
// the seen files'.
func readTree(t *testing.T, p string) map[string]string {
	t.Helper()
	out := readDir(t, statefile.Dir(p))
	if _, err := os.Stat(statefile.Dir(SeenPath(p))); err == nil {
		for name, data := range readDir(t, statefile.Dir(SeenPath(p))) {
			out["seen/"+name] = data
		}
	}
	return out
}

func TestPollTimesAloneAreWrittenOnlyWhenDue(t *testing.T) {
	p := filepath.Join(t.TempDir(), "polling-cursors.json")
	if _, err := sampleState().Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	url := "https://jolt37.hive37.ai/traces/"
	polled := time.Date(2026, 2, 23, 16, 0, 0, 0, time.UTC) // as sampleState
	for _, tt := range []struct {
		name        string
		timesBefore time.Time
		want        bool
	}{
		{"no refresh", time.Time{}, false},
		{"refresh, stored times recent", polled, false},
		{"refresh, stored times old", polled.Add(time.Second), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := Load(p)
			s.Cursor(url).LastPolled = polled.Add(time.Hour)
			s.Cursor(url).LastSuccess = polled.Add(time.Hour)
			files, err := s.Files(tt.timesBefore)
			if err != nil {
				t.Fatal(err)
			}
			old, _ := statefile.ReadOne(p, statefile.PeerFileName(url))
			if got := string(files[statefile.PeerFileName(url)]) != string(old); got != tt.want {
				t.Fatalf("file rewritten = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOldSingleFileMigratesOnSave(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "polling-cursors.json")
	old, err := os.ReadFile(filepath.Join("testdata", "legacy-single-file.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, old, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := load(p, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := s.Save(p, time.Time{}); err != nil || !changed {
		t.Fatalf("save: changed=%v err=%v", changed, err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("the single file is still there after the split: %v", err)
	}
	back, err := load(p, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	want := sampleState()
	if len(back.Cursors) != len(want.Cursors) || back.Cursors["https://jolt37.hive37.ai/traces/"].LastSeenSeq != 50 ||
		len(back.SeenHashes) != 2 || back.Hosts["jolt37.hive37.ai"].CrawlDelay != 10*time.Second {
		t.Fatalf("migrated state %+v; want the single file's cursors, seen hashes and hosts", back)
	}
	if _, ok := readDir(t, statefile.Dir(p))["seen.json"]; !ok {
		t.Error("the single file's seen hashes, from no known peer, are not in seen.json")
	}
}

// readDir returns the contents of the split state in dir, by key
// (statefile.Read: its shards hold them).
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	_, files, err := statefile.Read(dir + ".json")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for key, data := range files {
		out[key] = string(data)
	}
	return out
}

func sampleState() *State {
	local := time.FixedZone("CET", 3600)
	s := New()
	c := s.Cursor("https://jolt37.hive37.ai/traces/")
	c.Agent, c.LastSeenSeq = "jolt37", 50
	c.LastPolled = time.Date(2026, 2, 23, 17, 0, 0, 0, local)
	c.Gaps = Ranges{{From: 49, To: 49}, {From: 46, To: 48}}
	c.Retry = []manifest.Seq{44, 41, 44}
	s.Cursor("https://learned.example/").LearnedFrom = "https://jolt37.hive37.ai/traces/"
	s.MarkSeenFrom("https://jolt37.hive37.ai/traces/", "sha256:bbb", time.Date(2026, 2, 23, 16, 0, 0, 0, time.UTC))
	s.MarkSeen("sha256:aaa", time.Date(2026, 2, 22, 16, 0, 0, 0, time.UTC))
	s.Hosts = map[string]*Host{"jolt37.hive37.ai": {CrawlDelay: 10 * time.Second}}
	return s
}

func TestEvictSeenDropsHashesOlderThanNinetyDays(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	s := New()
	s.MarkSeen("sha256:old", now.Add(-SeenRetention-time.Second))
	s.MarkSeen("sha256:edge", now.Add(-SeenRetention))
	s.MarkSeen("sha256:new", now.Add(-time.Hour))
	if n := s.EvictSeen(now); n != 1 {
		t.Fatalf("evicted %d, want 1", n)
	}
	if s.Seen("sha256:old") || !s.Seen("sha256:edge") || !s.Seen("sha256:new") {
		t.Fatalf("seen after eviction: %v", s.SeenHashes)
	}
}

func TestMarkSeenKeepsFirstSeenTime(t *testing.T) {
	s := New()
	first := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.MarkSeen("sha256:a", first)
	s.MarkSeen("sha256:a", first.Add(48*time.Hour))
	if got := s.SeenHashes["sha256:a"]; !got.Equal(first) {
		t.Fatalf("first seen = %v, want %v", got, first)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if string(got) != string(want) {
		t.Errorf("bytes differ from %s (run with -update and review the diff):\n%s", p, got)
	}
}

func FuzzLoad(f *testing.F) {
	for _, name := range []string{"seed000-list.json", "seed000-breaker.json", "legacy-single-file.json"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"cursors":{"x":null},"seen_hashes":null}`))
	// A cursor's MANIFEST as an older node fingerprinted it, and as now.
	f.Add([]byte(`{"cursors":{"https://a.example/":{"manifest_sha256":"sha256:` + strings.Repeat("ab", 32) + `"}}}`))
	f.Add([]byte(`{"cursors":{"https://a.example/":{"manifest_sum":"abababababababab","manifest_sha256":"sha256:00"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := decode(data, loadTime)
		if err != nil {
			return
		}
		files, err := s.Files(time.Time{})
		if err != nil {
			t.Fatalf("encode decoded state: %v", err)
		}
		again := New()
		for _, name := range sortedNames(files) {
			if err := again.decodeSplit(name, files[name]); err != nil {
				t.Fatalf("state file %s written by Files does not decode: %v\n%s", name, err, files[name])
			}
		}
		files2, _ := again.Files(time.Time{})
		if len(files) != len(files2) {
			t.Fatalf("files not stable: %d then %d", len(files), len(files2))
		}
		for name := range files {
			if string(files[name]) != string(files2[name]) {
				t.Fatalf("%s is not stable:\n%s\n%s", name, files[name], files2[name])
			}
		}
	})
}

func TestRenameMovesACursorAndItsSeenHashesOnlyToAFreeURL(t *testing.T) {
	s := New()
	s.Cursor("https://a.example/%61/").LastSeenSeq = 7
	s.MarkSeenFrom("https://a.example/%61/", "sha256:x", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	s.Cursor("https://b.example/")
	if s.Rename("https://a.example/%61/", "https://b.example/") {
		t.Error("renamed onto a URL that has a cursor")
	}
	if !s.Rename("https://a.example/%61/", "https://a.example/a/") {
		t.Fatal("rename to a free URL refused")
	}
	if c := s.Cursors["https://a.example/a/"]; c == nil || c.LastSeenSeq != 7 || s.Cursors["https://a.example/%61/"] != nil {
		t.Errorf("cursors after rename: %v", s.SortedURLs())
	}
	if got := s.seenFrom["sha256:x"]; !slices.Equal(got, []string{"https://a.example/a/"}) {
		t.Errorf("hash still seen from %q", got)
	}
	if s.Rename("https://nobody.example/", "https://c.example/") {
		t.Error("renamed a cursor that does not exist")
	}
}

func TestLegacyCursorWithoutAURLIsDroppedOnMigration(t *testing.T) {
	for name, old := range map[string]string{
		"empty cursor":     `{"Cursors":{"":{}}}`,
		"beside a peer":    `{"cursors":{"":{"last_seen_seq":3},"https://a.example/":{"last_seen_seq":7}}}`,
		"null beside none": `{"cursors":{"":null}}`,
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "polling-cursors.json")
			if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := load(p, fixedNow)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Save(p, time.Time{}); err != nil {
				t.Fatalf("save: %v", err)
			}
			back, err := load(p, fixedNow)
			if err != nil {
				t.Fatalf("the migrated state does not load: %v", err)
			}
			if _, ok := back.Cursors[""]; ok {
				t.Error("a cursor without a URL survived the migration")
			}
			if c := back.Cursors["https://a.example/"]; strings.Contains(old, "a.example") && (c == nil || c.LastSeenSeq != 7) {
				t.Errorf("the peer beside it was not kept: %+v", c)
			}
		})
	}
}

// TestAHashIsSeenPerPeer: the same bytes listed by a second peer are not
// seen from it, so its listing is read (a mirror that lists another's file
// first must not make us skip the author's); both peers' files keep the
// hash, and it stays seen from each after a save and a load.
func TestAHashIsSeenPerPeer(t *testing.T) {
	const a, b = "https://a.example/", "https://b.example/"
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := New()
	s.Cursor(a)
	s.Cursor(b)
	s.MarkSeenFrom(a, "sha256:x", at)
	if !s.SeenFrom(a, "sha256:x") || s.SeenFrom(b, "sha256:x") {
		t.Fatalf("seen from a %v, from b %v; want true, false", s.SeenFrom(a, "sha256:x"), s.SeenFrom(b, "sha256:x"))
	}
	s.MarkSeenFrom(b, "sha256:x", at.Add(time.Hour))
	path := filepath.Join(t.TempDir(), "polling-cursors.json")
	if _, err := s.Save(path, at); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{a, b} {
		if !got.SeenFrom(url, "sha256:x") {
			t.Errorf("after a load, not seen from %s", url)
		}
	}
	if !got.SeenHashes["sha256:x"].Equal(at) {
		t.Errorf("first seen %v, want %v", got.SeenHashes["sha256:x"], at)
	}
	if got.SeenFrom("https://c.example/", "sha256:x") {
		t.Error("seen from a peer that never listed it")
	}
}
