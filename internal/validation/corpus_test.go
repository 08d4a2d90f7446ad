package validation

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
)

// TestCorpusValidationTraces reads the six real validation traces and the
// trace each one judges.
func TestCorpusValidationTraces(t *testing.T) {
	dir := corpustest.Dir(t)
	tests := map[string]struct {
		ref, result string
	}{
		"czero/traces/065-trace.md":          {"noobagent/157", ResultPass},
		"jarvis-maximum/traces/014-trace.md": {"newagent2/170", ResultPass},
		"jarvis-maximum/traces/073-trace.md": {"bottymcbotface/042", ResultPass},
		"jarvis-maximum/traces/074-trace.md": {"bottymcbotface/042", ResultPass},
		"jarvis-maximum/traces/148-trace.md": {"czero/095", ResultPass},
		"jarvis-maximum/traces/149-trace.md": {"newagent2/193", ResultPass},
	}
	for file, want := range tests {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "agents-hosted", filepath.FromSlash(file)))
			if err != nil {
				t.Fatal(err)
			}
			v, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if v.Layout != LayoutTrace || v.TraceRef != want.ref || v.Result != want.result {
				t.Errorf("layout %s ref %q result %s", v.Layout, v.TraceRef, v.Result)
			}
		})
	}
}

// TestCorpusOtherTracesAreNotValidations checks that ordinary traces are
// not mistaken for validations.
func TestCorpusOtherTracesAreNotValidations(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpustest.Dir(t), "agents-hosted", "*", "traces", "*.md"))
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(data); err == nil {
			n++
		}
	}
	if n != 6 {
		t.Errorf("%d corpus traces read as validations, want the 6 of type validation", n)
	}
}
