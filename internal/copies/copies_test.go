package copies

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

const peerURL = "https://czero.example/traces/"

func hashOf(s string) manifest.Hash { return manifest.HashBytes([]byte(s)) }

func TestOfCleansAndCutsAtALine(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	long := strings.Repeat(line, MaxTextBytes/len(line)+5)
	for _, tc := range []struct {
		name, in string
		want     string
		cut      bool
	}{
		{"short kept whole", "# T\r\n\nBody \x1b[31m\n", "# T\n\nBody \uFFFD[31m\n", false},
		{"long cut at the last line that fits", long, long[:MaxTextBytes/len(line)*len(line)], true},
		{"one long line cut at a character", strings.Repeat("é", MaxTextBytes), strings.Repeat("é", MaxTextBytes/2), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Of(peerURL, []byte(tc.in))
			if c.Text != tc.want || c.Cut != tc.cut || c.AgentURL != peerURL {
				t.Errorf("Of = %d bytes, cut %v; want %d bytes, cut %v", len(c.Text), c.Cut, len(tc.want), tc.cut)
			}
		})
	}
}

func TestSelectKeepsEachAgentsNewestThenTheMeshsNewest(t *testing.T) {
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var cands []Candidate
	for i := range 5 {
		cands = append(cands, Candidate{Hash: hashOf(fmt.Sprint("a", i)), AgentURL: "https://a/", Seq: manifest.Seq(i + 1), Submitted: day.AddDate(0, 0, i)})
		cands = append(cands, Candidate{Hash: hashOf(fmt.Sprint("b", i)), AgentURL: "https://b/", Seq: manifest.Seq(i + 1), Submitted: day.AddDate(0, 0, 10+i)})
	}
	got := Select(cands, 3, 4)
	// b's three newest (days 12–14), then a's newest (day 4).
	want := []string{"b4", "b3", "b2", "a4"}
	if len(got) != len(want) {
		t.Fatalf("kept %d, want %d", len(got), len(want))
	}
	for _, w := range want {
		if !got[hashOf(w)] {
			t.Errorf("%s not kept", w)
		}
	}
}

func TestSaveLoadRoundTripsAndAnUnchangedSaveWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "copies.json")
	s := New()
	s.Put(hashOf("one"), Of(peerURL, []byte("# One\n\nText.\n")))
	s.Put(hashOf("two"), Of("https://other.example/", []byte("# Two\n")))
	if changed, err := s.Save(path); err != nil || !changed {
		t.Fatalf("Save = %v, %v; want a change", changed, err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.ByHash) != 2 || back.ByHash[hashOf("one")].Text != "# One\n\nText.\n" {
		t.Fatalf("Load = %+v", back.ByHash)
	}
	if changed, err := back.Save(path); err != nil || changed {
		t.Fatalf("second Save = %v, %v; want nothing written", changed, err)
	}
	back.Keep(map[manifest.Hash]bool{hashOf("one"): true})
	if changed, err := back.Save(path); err != nil || !changed {
		t.Fatalf("Save after Keep = %v, %v", changed, err)
	}
	entries, _ := os.ReadDir(statefile.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files left, want the one peer's", len(entries))
	}
}

func TestLoadRefusesACopyOverTheBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "copies.json")
	dir := statefile.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"big.json":  fmt.Sprintf(`{"copies":{%q:{"agent_url":"u","text":%q}}}`, hashOf("x"), strings.Repeat("a", MaxTextBytes+1)),
		"hash.json": `{"copies":{"sha256:zz":{"agent_url":"u","text":"a"}}}`,
	} {
		os.RemoveAll(dir)
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		var ce *statefile.CorruptError
		if _, err := Load(path); !errors.As(err, &ce) {
			t.Errorf("%s: Load = %v, want a CorruptError", name, err)
		}
	}
}

func FuzzOf(f *testing.F) {
	if dir, ok := corpustest.Find(); ok {
		real, _ := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "traces", "*.md"))
		for i := 0; i < len(real); i += 25 {
			if b, err := os.ReadFile(real[i]); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("# Title\r\n\nBody with `code` and a [link](javascript:alert(1)).\n"))
	f.Add([]byte("\xff\xfe\x00\u202e"))
	f.Add([]byte(strings.Repeat("é", MaxTextBytes)))
	f.Fuzz(func(t *testing.T, body []byte) {
		c := Of(peerURL, body)
		if len(c.Text) > MaxTextBytes || !utf8.ValidString(c.Text) {
			t.Fatalf("Of gave %d bytes, valid UTF-8 %v", len(c.Text), utf8.ValidString(c.Text))
		}
		if strings.ContainsAny(c.Text, "\r\x00\u202e") {
			t.Fatalf("Of kept a control character: %q", c.Text)
		}
		if again := Of(peerURL, []byte(c.Text)); again.Text != c.Text || again.Cut {
			t.Fatalf("a copy of a copy differs")
		}
	})
}

// TestSaveHoldsNothingOfWhatItWrote: Save kept the files it wrote (12 MB
// at MaxCopies) for a later Save to compare with, which a heartbeat never
// makes; it holds none of them now, so a later Save compares with the
// disk, and puts back a file changed there since.
func TestSaveHoldsNothingOfWhatItWrote(t *testing.T) {
	path := filepath.Join(t.TempDir(), "copies.json")
	s := New()
	s.Put(hashOf("one"), Of(peerURL, []byte("# One\n\nText.\n")))
	if changed, err := s.Save(path); err != nil || !changed {
		t.Fatalf("Save = %v, %v; want a change", changed, err)
	}
	if s.read != nil {
		t.Fatalf("Save holds %d files it wrote, want none", len(s.read))
	}
	entries, err := os.ReadDir(statefile.Dir(path))
	if err != nil || len(entries) != 1 {
		t.Fatalf("%d files written (%v), want 1", len(entries), err)
	}
	file := filepath.Join(statefile.Dir(path), entries[0].Name())
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if changed, err := s.Save(path); err != nil || !changed {
		t.Fatalf("Save after the file changed on disk = %v, %v; want it written again", changed, err)
	}
	if got, _ := os.ReadFile(file); string(got) != string(want) {
		t.Errorf("file after the second Save:\n%s\nwant:\n%s", got, want)
	}
}
