package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/trace"
)

// seedTraces adds the fixture's traces, the hostile ones and, when the
// real-mesh corpus is present, a sample of real traces.
func seedTraces(f *testing.F) {
	paths, _ := filepath.Glob("testdata/node/traces/*.md")
	if dir, ok := corpustest.Find(); ok {
		real, _ := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "traces", "*.md"))
		for i := 0; i < len(real); i += 25 {
			paths = append(paths, real[i])
		}
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range hostileTraces {
		f.Add([]byte(s))
	}
}

// FuzzRenderMarkdown checks that no trace, however built, makes a page
// that can run script, and that rendering never panics.
func FuzzRenderMarkdown(f *testing.F) {
	seedTraces(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := renderMarkdown(src)
		if err != nil {
			t.Fatal(err)
		}
		if bad := executable(string(out)); len(bad) > 0 {
			t.Errorf("executable content from %q: %v", src, bad)
		}
	})
}

// FuzzOwnTrace checks that turning any file into a trace page's model
// never panics, that the body it keeps is a suffix of the input (metadata
// is only ever cut off the top), and that every citation is canonical.
func FuzzOwnTrace(f *testing.F) {
	seedTraces(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := trace.Parse(src)
		tr := ownTrace(src, p, err)
		if len(tr.Body) > len(src) || string(src[len(src)-len(tr.Body):]) != string(tr.Body) {
			t.Errorf("body is not a suffix of the input")
		}
		for _, c := range tr.Cites {
			agent, seq, ok := strings.Cut(c, "/")
			if !ok || agent != strings.ToLower(agent) || strings.HasPrefix(seq, "0") {
				t.Errorf("citation %q is not canonical", c)
			}
		}
	})
}

// FuzzParseIdentity checks that IDENTITY.md fields never come out empty.
func FuzzParseIdentity(f *testing.F) {
	f.Add([]byte("# Identity\n- Name: czero\n- Joined: 2026-02-26\n**Role:** Builder\nname: x\n"))
	if dir, ok := corpustest.Find(); ok {
		ids, _ := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "IDENTITY.md"))
		for _, p := range ids {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, fl := range parseIdentity(src) {
			if fl.Name == "" || fl.Value == "" {
				t.Errorf("empty field %+v", fl)
			}
		}
	})
}

// FuzzPeerFeedEntry checks that whatever a peer names its trace, its
// agent and its URL, the mesh's feed stays well-formed Atom whose content
// cannot run script.
func FuzzPeerFeedEntry(f *testing.F) {
	f.Add("Citation graphs in practice", "ada", "https://ada.example.org/traces/x.md")
	f.Add("<script>alert(1)</script>", "<b onclick=x>", "javascript:alert(1)")
	f.Add("]]>&amp;\x00\xff", "a\"b", "https://x.org/\"><script>")
	f.Fuzz(func(t *testing.T, title, agent, url string) {
		n := &Node{Agent: "fern", URL: "https://fern.example.org/",
			Others: []*Ref{{Agent: agent, Seq: 1, Title: title, URL: url, Hash: "sha256:00", Submitted: fixtureNow}}}
		feed, err := meshFeed(n, prepare(n))
		if err != nil {
			return // a title that XML cannot carry fails the build with an error, never a broken feed
		}
		for _, bad := range checkAtom(feed) {
			t.Errorf("title %q agent %q url %q: %s", title, agent, url, bad)
		}
	})
}
