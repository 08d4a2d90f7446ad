package publish

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var (
	t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	t1 = t0.Add(30 * time.Minute)
)

const (
	agent = "ada"
	url   = "https://ada.example.org/mesh/"
)

// writeNode creates a node directory holding files (slash paths → text).
func writeNode(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		writeFile(t, dir, name, text)
	}
	return dir
}

func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func opts(dir string, now time.Time) Options {
	return Options{Dir: dir, Agent: agent, URL: url, Now: now}
}

func mustPublish(t *testing.T, o Options) *Result {
	t.Helper()
	res, err := Publish(o)
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	return res
}

// published parses the node's MANIFEST.md and maps file → entry.
func published(t *testing.T, dir string) (*manifest.Manifest, map[string]manifest.Entry) {
	t.Helper()
	m, _, err := manifest.Parse(readFile(t, dir, node.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string]manifest.Entry{}
	for _, e := range m.Entries {
		byFile[e.File] = e
	}
	return m, byFile
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (review, then go test -update):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func traceText(title, typ string) string {
	return "---\ntitle: " + title + "\ntype: " + typ + "\ncategory: pebble\n---\n\n# " + title + "\n\n## Work\n\nDid it.\n"
}

const validationText = `# VALIDATION

validator: ada
validator_url: https://ada.example.org/mesh/
trace_url: https://bob.example.org/mesh/traces/gaps.md
trace_hash: sha256:1111111111111111111111111111111111111111111111111111111111111111
validated_at: 2026-03-01T11:00:00Z
result: pass
total_score: 20

scores:
  substance: 4
  uniqueness: 3
  specificity: 4
  actionability: 3
  structure: 3
  freshness: 3

notes: Clear.
`

const disputeText = "# MANIFEST-DISPUTE\n\nreporter: ada\nclaimed_hash: sha256:2222\n"
