package audit

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

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

// FuzzDataElements reads any page without failing, returns only data-*
// attributes, and reads back any value the site escapes into one.
func FuzzDataElements(f *testing.F) {
	for _, p := range []string{
		filepath.Join("testdata", "mesh", "ann", "signal.html"),
		filepath.Join("testdata", "mesh", "ann", "traces", "001-one.html"),
		filepath.Join("..", "site", "testdata", "golden", "signal.html.golden"),
		filepath.Join("..", "site", "testdata", "golden", "traces", "001-hello-mesh.html.golden"),
	} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data, "Established")
		}
	}
	f.Add([]byte(`<p data-x='1' data-y=2 <!-- <b data-z="3"> -->`), `a"b&amp;<c>`)
	f.Fuzz(func(t *testing.T, page []byte, value string) {
		for _, el := range allElements(page) {
			for name := range el {
				if !strings.HasPrefix(name, "data-") {
					t.Fatalf("attribute %q is not data-*", name)
				}
			}
		}
		if !utf8.ValidString(value) {
			return
		}
		tag := []byte(`<tr class="self" data-agent="` + html.EscapeString(value) + `" data-tier=x>`)
		els := allElements(tag)
		if len(els) != 1 || els[0][attrAgent] != value || els[0][attrTier] != "x" {
			t.Fatalf("%q read as %v, want data-agent %q", tag, els, value)
		}
	})
}
