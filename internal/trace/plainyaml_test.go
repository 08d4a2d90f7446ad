package trace

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
)

// TestPlainFrontMatterMatchesYAML checks the fast path on the shapes
// real traces use and on the ones it must leave to the YAML decoder:
// where it answers, it answers as decodeYAML does.
func TestPlainFrontMatterMatchesYAML(t *testing.T) {
	for _, tc := range []struct {
		name, fm string
		plain    bool
	}{
		{"keys and values", "---\ntitle: Trace number 7\ntype: knowledge\ncategory: pebble\n---\n", true},
		{"flow list", "---\ntags: [bench, synthetic]\n---\n", true},
		{"quoted", "---\ntitle: \"A: colon\"\nagent: 'czero'\ntags: [\"a b\", 'c']\n---\n", true},
		{"empty value and list", "---\nparent:\ntags: []\n---\n", true},
		{"url and spaces", "---\nsource: https://example.org/x?y=1   \nnote: hi there,  [x] {y}\n---\n", true},
		{"closing at end of file", "---\ntitle: x\n---", true},
		{"blank lines", "---\n\ntitle: x\n\n---\n", true},
		{"unsorted keys", "---\ntype: b\nagent: a\n---\n", true},
		{"number", "---\nseq: 042\n---\n", false},
		{"date", "---\ndate: 2026-02-23\n---\n", false},
		{"boolean", "---\ndraft: true\n---\n", false},
		{"null key", "---\nnull: x\n---\n", false},
		{"duplicate key", "---\ntitle: a\ntitle: b\n---\n", false},
		{"comment", "---\n# note\ntitle: a\n---\n", false},
		{"trailing comment", "---\ntitle: a #b\n---\n", false},
		{"block list", "---\nrefs:\n  - czero/095\n  - \"https://arxiv.org/abs/2305.10601\"\ntype: x\n---\n", true},
		{"block list unindented", "---\nrefs:\n- a\n- b\n---\n", true},
		{"block list uneven", "---\ntags:\n  - a\n - b\n---\n", false},
		{"block list nested", "---\ntags:\n  - [a]\n---\n", false},
		{"block list empty item", "---\ntags:\n  -\n---\n", false},
		{"block map", "---\nauthor:\n  name: a\n---\n", false},
		{"mapping in value", "---\ntitle: a: b\n---\n", false},
		{"escape", "---\ntitle: \"a\\tb\"\n---\n", false},
		{"tab", "---\ntitle:\ta\n---\n", false},
		{"crlf", "---\r\ntitle: a\r\n---\r\n", false},
		{"byte order mark", "\ufeff---\ntitle: a\n---\n", false},
		{"indicator", "---\ntitle: *a\n---\n", false},
		{"line separator", "---\ntitle: a\u2028b\n---\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := plainFrontMatter([]byte(tc.fm))
			if ok != tc.plain {
				t.Fatalf("plain path taken: %v, want %v", ok, tc.plain)
			}
			if !ok {
				return
			}
			want, err := decodeYAML([]byte(tc.fm))
			if err != nil {
				t.Fatalf("the YAML decoder refuses what the plain path read: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("plain path %q, YAML decoder %q", got, want)
			}
		})
	}
}

// TestPlainFrontMatterReadsCorpus checks that the real mesh's front
// matter goes through the fast path as the YAML decoder reads it, and
// that most of it does (else the fast path saves nothing).
func TestPlainFrontMatterReadsCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpustest.Dir(t), "*", "*", "traces", "*.md"))
	blocks, plain := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, end, ok := frontMatterBlock(data)
		if !ok {
			continue
		}
		blocks++
		got, ok := plainFrontMatter(data[:end])
		if !ok {
			continue
		}
		plain++
		if want, err := decodeYAML(data[:end]); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: plain path %q, YAML decoder %q (%v)", f, got, want, err)
		}
	}
	t.Logf("%d of %d front matter blocks read by the plain path", plain, blocks)
	if plain*2 < blocks {
		t.Errorf("only %d of %d front matter blocks took the plain path", plain, blocks)
	}
}
