package e2e

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/validation"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestThreeNodeMeshPublishesGoldenFiles pins what the settled three-node
// mesh publishes: ada's MANIFEST with bob's verdicts as statuses and one of
// bob's validations. Loopback ports change every run, so each node's URL is
// written as {{name}}/ (and bob's MANIFEST, whose hashes are of files that
// hold those URLs, is left to the other tests).
func TestThreeNodeMeshPublishesGoldenFiles(t *testing.T) {
	m := threeNodes(t)
	m.settle(maxRounds)
	ada, bob := m.node("ada"), m.node("bob")
	retry := hashOf(readTestdata(t, "traces/ada/001-retry-ladder.md"))
	tests := []struct {
		name, dir, file string
	}{
		{"ada-manifest", ada.dir, node.ManifestFile},
		{"bob-validation-of-ada-retry-ladder", bob.dir, filepath.Join(node.ValidationsDir, validation.FileName(retry))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(tt.dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got := string(data)
			for _, n := range m.nodes {
				got = strings.ReplaceAll(got, n.url, "{{"+n.name+"}}/")
			}
			golden := filepath.Join("testdata", "golden", tt.name+".golden")
			if *update {
				writeFile(t, ".", golden, got)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s (rerun with -update and review the diff):\n%s", tt.file, golden, got)
			}
		})
	}
}
