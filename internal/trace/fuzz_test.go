package trace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/peertext"
)

// FuzzParse checks that Parse never panics on peers' text, that every
// metadata value it returns is clean (peertext.Clean), that every
// citation it reports is found again from its own spelling, and that the
// body holds no more than the input.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.md")
	if dir, ok := corpustest.Find(); ok {
		more, _ := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "traces", "0[0-2]*.md"))
		seeds = append(seeds, more...)
	}
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(data)
		if err != nil {
			return
		}
		checkHoldsNoneOfItsInput(t, data)
		for _, v := range append([]string{tr.Title, tr.Agent, tr.Date, tr.Type, tr.Category}, tr.Tags...) {
			if peertext.Clean(v) != v {
				t.Fatalf("metadata value %q is not clean", v)
			}
		}
		for k, v := range tr.Fields {
			if peertext.Clean(v) != v {
				t.Fatalf("field %s = %q is not clean", k, v)
			}
		}
		if len(tr.Body) > len(data) {
			t.Fatalf("body of %d bytes from %d", len(tr.Body), len(data))
		}
		for _, c := range tr.Cites {
			again := FindCitations([]byte(c.String()))
			if len(again) != 1 || again[0] != c {
				t.Fatalf("citation %+v reads back as %+v", c, again)
			}
		}
		for _, c := range FindCitations(data) {
			if c.Seq < 1 || c.Agent == "" {
				t.Fatalf("bad citation %+v", c)
			}
		}
	})
}

// FuzzPlainFrontMatter checks the fast path for front matter against the
// YAML decoder: wherever the fast path reads a block, the decoder reads
// it too, to the same fields.
func FuzzPlainFrontMatter(f *testing.F) {
	f.Add([]byte("---\ntitle: Trace number 7\ntype: knowledge\ntags: [bench, synthetic]\n---\n"))
	f.Add([]byte("---\nrefs:\n  - czero/095\n  - 'x y'\nagent: \"a b\"\n\n---"))
	f.Add([]byte("---\nk: a:b c\nl: [a, 'b,c', \"d\"]\nm: x # y\nyes: no\n---\n"))
	if dir, ok := corpustest.Find(); ok {
		files, _ := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "traces", "*.md"))
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				if _, end, ok := frontMatterBlock(data); ok {
					f.Add(data[:end])
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, fm []byte) {
		got, ok := plainFrontMatter(fm)
		if !ok {
			return
		}
		want, err := decodeYAML(fm)
		if err != nil {
			t.Fatalf("the fast path read %q as %q; the YAML decoder refuses it: %v", fm, got, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%q: fast path %q, YAML decoder %q", fm, got, want)
		}
	})
}

// TestParsedTraceHoldsNoneOfItsInput: Parse reads its input's bytes as
// strings without a copy (splitLines), so every string of the trace it
// returns must be copied out; overwriting the input after Parse changes
// none of them.
func TestParsedTraceHoldsNoneOfItsInput(t *testing.T) {
	seeds, err := filepath.Glob("testdata/*.md")
	if err != nil || len(seeds) == 0 {
		t.Fatalf("no traces in testdata: %v", err)
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(s), func(t *testing.T) { checkHoldsNoneOfItsInput(t, data) })
	}
}

// checkHoldsNoneOfItsInput parses a copy of data, overwrites the copy and
// fails when any string of the trace (all but its Body, a slice of the
// input by design) changed with it.
func checkHoldsNoneOfItsInput(t *testing.T, data []byte) {
	t.Helper()
	buf := bytes.Clone(data)
	tr, err := Parse(buf)
	if err != nil {
		t.Fatal(err)
	}
	before := describeStrings(tr)
	for i := range buf {
		buf[i] = 'x'
	}
	if after := describeStrings(tr); after != before {
		t.Fatalf("the trace changed with its input's bytes:\nbefore %s\nafter  %s", before, after)
	}
}

// describeStrings is every field of tr but its Body, as %#v writes it.
func describeStrings(tr *Trace) string {
	c := *tr
	c.Body = nil
	return fmt.Sprintf("%#v", c)
}
