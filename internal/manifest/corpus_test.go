package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
)

// TestCorpusManifestsParseAndHashesMatch reads all thirteen real manifests
// and checks every row against the bytes of its file.
func TestCorpusManifestsParseAndHashesMatch(t *testing.T) {
	dir := corpustest.Dir(t)
	paths, err := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(dir, "system", "bridge", "MANIFEST.md"))
	if len(paths) != 13 {
		t.Fatalf("found %d manifests, want 13", len(paths))
	}
	total := 0
	for _, path := range paths {
		name := filepath.Base(filepath.Dir(path))
		t.Run(name, func(t *testing.T) {
			m := parseFile(t, path)
			for _, e := range m.Entries {
				if e.File == "" {
					continue
				}
				total++
				data, err := os.ReadFile(filepath.Join(filepath.Dir(path), filepath.FromSlash(e.File)))
				if err != nil {
					t.Fatalf("seq %d: %v", e.Seq, err)
				}
				if got := HashBytes(data); got != e.Hash {
					t.Errorf("seq %d %s: hash %s, row says %s", e.Seq, e.File, got, e.Hash)
				}
			}
		})
	}
	if total != 856 {
		t.Errorf("%d rows with a file, want 856", total)
	}
}

func TestCorpusQuirks(t *testing.T) {
	dir := corpustest.Dir(t)
	tests := []struct {
		path     string
		sequence Seq
		rows     int
	}{
		{"agents-hosted/noobagent/MANIFEST.md", 254, 204},
		{"agents-hosted/newagent2/MANIFEST.md", 246, 246},
		{"agents-hosted/czero/MANIFEST.md", 123, 123},
		{"system/bridge/MANIFEST.md", 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			m := parseFile(t, filepath.Join(dir, filepath.FromSlash(tt.path)))
			if m.Sequence != tt.sequence || len(m.Entries) != tt.rows {
				t.Errorf("sequence %d rows %d, want %d %d", m.Sequence, len(m.Entries), tt.sequence, tt.rows)
			}
		})
	}
	m := parseFile(t, filepath.Join(dir, "agents-hosted/noobagent/MANIFEST.md"))
	seen := map[Seq]bool{}
	for _, e := range m.Entries {
		seen[e.Seq] = true
	}
	for seq := Seq(104); seq <= 151; seq++ {
		if seen[seq] {
			t.Errorf("noobagent seq %d present, want the gap 104–151", seq)
		}
	}
	if m.MaxSeq() != 254 || m.Agent != "noobagent" {
		t.Errorf("noobagent maxSeq %d agent %q", m.MaxSeq(), m.Agent)
	}
}

func parseFile(t *testing.T, path string) *Manifest {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, problems, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	return m
}
