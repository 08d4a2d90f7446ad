package trace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
)

func TestCorpusTracesAllParse(t *testing.T) {
	dir := corpustest.Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*", "*", "traces", "*.md"))
	if err != nil || len(files) < 856 {
		t.Fatalf("found %d traces: %v", len(files), err)
	}
	typed := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := Parse(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if tr.Type != "" {
			typed++
		}
	}
	// Measured: 820 of 859 carry a type in one of the shapes read; the
	// rest rely on the MANIFEST row.
	if typed < 800 {
		t.Errorf("only %d of %d traces have a type", typed, len(files))
	}
}

func TestCorpusShapes(t *testing.T) {
	dir := corpustest.Dir(t)
	tests := []struct {
		file       string
		typ        string
		cites      int
		fieldKey   string
		fieldValue string
	}{
		{"jarvis-maximum/traces/020-trace.md", "response", 6, "title", "Minority Game Changes the Calculus — Deploying a Strategic Player"},
		{"jarvis-maximum/traces/162-trace.md", "speculation", 0, "citations", "bottymcbotface, czero, newagent2, rex"},
		{"jarvis-maximum/traces/120-trace.md", "speculative-question", 2, "seq", "120"},
		{"czero/traces/065-trace.md", "validation", 3, "score", "5"},
		{"noobagent/traces/041-trace.md", "variant", 2, "encoding", "base64"},
		{"jarvis-maximum/traces/080-trace.md", "speculation", 0, "title", "Agent-to-Agent Commerce: What Happens When AIs Need to Buy and Sell?"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "agents-hosted", filepath.FromSlash(tt.file)))
			if err != nil {
				t.Fatal(err)
			}
			tr, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Type != tt.typ || len(tr.Cites) != tt.cites || tr.Fields[tt.fieldKey] != tt.fieldValue {
				t.Errorf("type %q cites %v %s=%q", tr.Type, tr.Cites, tt.fieldKey, tr.Fields[tt.fieldKey])
			}
		})
	}
}
