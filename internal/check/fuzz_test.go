package check

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/validation"
)

// validationTrace finds the real traces that are validations ("**Type:**
// validation", "type: validation"), the corpus seeds worth fuzzing from.
var validationTrace = regexp.MustCompile(`(?im)^\**type:\**\s*validation\s*$`)

// FuzzCheck feeds any bytes as a changed validation and a changed trace:
// Check must never panic, and every problem must point at a line of the
// file it names.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(validationFile(bobTrace, bobTraceURL)))
	f.Add([]byte(validationFile(bobTrace, bobTraceURL, "substance: 9", "result: maybe")))
	f.Add([]byte("# Validation\n\n**Validator:** ada\n**Verdict:** pass\n\n## Scores\n- Substance: 4\n\n**Total: 24/30**\n"))
	f.Add([]byte(""))
	if dir, ok := corpustest.Find(); ok {
		seeds, _ := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "traces", "*.md"))
		for _, s := range seeds {
			if b, err := os.ReadFile(s); err == nil && validationTrace.Match(b) {
				f.Add(b)
			}
		}
	}
	dir := cleanNode(f)
	val := "validations/" + validation.FileName(bobTrace)
	const tr = "traces/fuzzed.md"
	f.Fuzz(func(t *testing.T, data []byte) {
		write(t, dir, val, string(data))
		write(t, dir, tr, string(data))
		n := bytes.Count(data, []byte("\n")) + 1
		for _, p := range Check(options(dir, val, tr)) {
			if p.File != val && p.File != tr {
				t.Fatalf("problem on a file not given: %s", p)
			}
			if p.Line < 1 || p.Line > n {
				t.Fatalf("line %d outside the file's %d lines: %s", p.Line, n, p)
			}
		}
	})
}
