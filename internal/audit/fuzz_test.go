package audit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/manifest"
)

// FuzzWithoutProblemsDropsEveryRowNotLaidOut checks, on any MANIFEST, that
// the scratch MANIFEST verify hands its heartbeat lists none of the files
// it did not lay out: a row left in would make the heartbeat refuse to run.
func FuzzWithoutProblemsDropsEveryRowNotLaidOut(f *testing.F) {
	f.Add([]byte("# MANIFEST\n\nagent: a\n\n| seq | hash | file | type | status | submitted |\n|---|---|---|---|---|---|\n| 1 | sha256:" +
		"abababababababababababababababababababababababababababababababab | traces/x.md | knowledge | pending | 2026-03-01T00:00:00Z |\n"))
	if dir, ok := corpustest.Find(); ok {
		for _, a := range []string{"noobagent", "czero", "newagent2"} {
			if data, err := os.ReadFile(filepath.Join(dir, "agents-hosted", a, "MANIFEST.md")); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := manifest.Parse(data)
		if err != nil {
			return
		}
		p := &public{manifestRaw: data, manifest: m, files: map[string][]byte{}}
		out, _, err := manifest.Parse(p.withoutProblems())
		if err != nil {
			t.Fatalf("scratch MANIFEST does not parse: %v", err)
		}
		for _, e := range out.Entries {
			if e.File != "" {
				t.Fatalf("row %d still names %q, which was not laid out", e.Seq, e.File)
			}
		}
	})
}
