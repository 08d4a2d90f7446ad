package state

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		wantSeq   map[string]int
		wantSeen  map[string]time.Time
		wantFails int
	}{
		{
			name: "seen_hashes as a list counts them first seen at load time",
			file: "seed000-list.json",
			wantSeq: map[string]int{
				"https://jolt37.hive37.ai/traces/":     42,
				"https://abernath37.hive37.ai/traces/": 107,
			},
			wantSeen: map[string]time.Time{"sha256:abc123...": loadTime, "sha256:def456...": loadTime},
		},
		{
			name:      "seen_hashes as a map keeps first-seen times and breaker fields",
			file:      "seed000-breaker.json",
			wantSeq:   map[string]int{"https://slow-agent.example.com/traces/": 12},
			wantSeen:  map[string]time.Time{"sha256:abc123": time.Date(2026, 2, 23, 16, 0, 0, 0, time.UTC), "sha256:def456": time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)},
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
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *CorruptError", err)
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
	changed, err := s.Save(p)
	if err != nil || !changed {
		t.Fatalf("first save: changed=%v err=%v", changed, err)
	}
	got, _ := os.ReadFile(p)
	golden(t, "saved.golden.json", got)

	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	changed, err = back.Save(p)
	if err != nil || changed {
		t.Fatalf("resave of loaded state: changed=%v err=%v, want unchanged", changed, err)
	}
	back.Cursor("https://new.example/traces/").LastSeenSeq = 1
	if changed, err = back.Save(p); err != nil || !changed {
		t.Fatalf("save after change: changed=%v err=%v", changed, err)
	}
}

func sampleState() *State {
	local := time.FixedZone("CET", 3600)
	s := New()
	c := s.Cursor("https://jolt37.hive37.ai/traces/")
	c.Agent, c.LastSeenSeq = "jolt37", 50
	c.LastPolled = time.Date(2026, 2, 23, 17, 0, 0, 0, local)
	c.Gaps = Ranges{{From: 49, To: 49}, {From: 46, To: 48}}
	c.Retry = []int{44, 41, 44}
	s.Cursor("https://learned.example/").LearnedFrom = "https://jolt37.hive37.ai/traces/"
	s.MarkSeen("sha256:bbb", time.Date(2026, 2, 23, 16, 0, 0, 0, time.UTC))
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
	for _, name := range []string{"seed000-list.json", "seed000-breaker.json", "saved.golden.json"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"cursors":{"x":null},"seen_hashes":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := decode(data, loadTime)
		if err != nil {
			return
		}
		out, err := s.Marshal()
		if err != nil {
			t.Fatalf("marshal decoded state: %v", err)
		}
		again, err := decode(out, loadTime)
		if err != nil {
			t.Fatalf("state written by Marshal does not decode: %v\n%s", err, out)
		}
		out2, _ := again.Marshal()
		if string(out) != string(out2) {
			t.Fatalf("marshal is not stable:\n%s\n%s", out, out2)
		}
	})
}
