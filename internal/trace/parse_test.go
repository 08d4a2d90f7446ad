package trace

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// dump is the golden view of a parsed trace.
func dump(t *Trace) []byte {
	view := struct {
		*Trace
		Body string
	}{t, string(t.Body)}
	out, err := json.MarshalIndent(view, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(out, '\n')
}

// TestParseGolden covers the three metadata styles and the quirks seen in
// the real corpus; the golden files show every field read.
func TestParseGolden(t *testing.T) {
	inputs, _ := filepath.Glob("testdata/*.md")
	if len(inputs) == 0 {
		t.Fatal("no testdata")
	}
	for _, in := range inputs {
		t.Run(strings.TrimSuffix(filepath.Base(in), ".md"), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			got := dump(tr)
			golden := strings.TrimSuffix(in, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestParseEarlierSourcesWin(t *testing.T) {
	data := "---\ntype: response\n---\n# T\n\n**Type:** knowledge\n**Category:** rock\n\nbody\n\n---\ntype: signal\ncategory: sand\ntags: a, b\n"
	tr, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Type != "response" || tr.Category != "rock" || strings.Join(tr.Tags, "|") != "a|b" {
		t.Errorf("type %q category %q tags %v", tr.Type, tr.Category, tr.Tags)
	}
	if bytes.Contains(tr.Body, []byte("type: signal")) || bytes.Contains(tr.Body, []byte("type: response")) {
		t.Errorf("body keeps metadata:\n%s", tr.Body)
	}
	if !bytes.HasPrefix(tr.Body, []byte("# T\n")) || !bytes.HasSuffix(tr.Body, []byte("body\n\n")) {
		t.Errorf("body %q", tr.Body)
	}
}

func TestParseFrontMatterEdgeCases(t *testing.T) {
	tests := []struct {
		name, data string
		title      string
		bodyHas    string
	}{
		{"yaml error falls back to key lines", "---\ntitle: A: B: C\ntype: x\n---\nbody", "A: B: C", "body"},
		{"prose between rules is body", "---\nJust a rule, then prose.\n---\n# Real\n", "Real", "Just a rule"},
		{"unclosed front matter is body", "---\ntitle: x\n# Heading\n", "x", "title: x"},
		{"toml-looking first line is not front matter", "+++\ntitle = 'x'\n+++\n# H\n", "H", "+++"},
		{"yaml anchors and maps", "---\na: &x [1, 2]\nb: *x\nc: {d: e}\ntitle: ok\n---\n", "ok", ""},
		{"date becomes text", "---\ndate: 2026-03-01\ntitle: d\n---\n", "d", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Parse([]byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if tr.Title != tt.title || !bytes.Contains(tr.Body, []byte(tt.bodyHas)) {
				t.Errorf("title %q body %q", tr.Title, tr.Body)
			}
		})
	}
}

func TestParseRejectsWhatIsNotText(t *testing.T) {
	for name, data := range map[string]string{"empty": "", "blank": " \n\t\n", "binary": "\xff\xfe\x00"} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(data)); err == nil {
				t.Error("accepted")
			}
		})
	}
}

func TestFindCitations(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"list", "czero/058, noobagent/158", "czero/058 noobagent/158"},
		{"mention", "[@uno/003] — I have hit this", "uno/003"},
		{"dedup case-insensitively", "Rex/012 and rex/12", "rex/012"},
		{"quoted yaml list", `["uno/003", "czero/075"]`, "uno/003 czero/075"},
		{"end of sentence", "see czero/095.", "czero/095"},
		{"range", "czero/058-060", "czero/058"},
		{"url path", "https://arxiv.org/abs/2305.10601", ""},
		{"file path", "traces/161-response.md", ""},
		{"decimal", "v/1.5", ""},
		{"score", "**Total: 24/30**", ""},
		{"protocol", "HTTP/2 and http/1", ""},
		{"seq zero", "a2a-sdk-python/0", ""},
		{"letters after", "czero/058x", ""},
		{"path after", "czero/058/x", ""},
		{"hosted url", "https://mycelnet.ai/basecamp/agents-hosted/czero/095", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range FindCitations([]byte(tt.text)) {
				got = append(got, c.String())
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("FindCitations(%q) = %v, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestParseCleansControlCharactersInMetadata(t *testing.T) {
	for _, tc := range []struct{ name, data, title, typ string }{
		{"front matter", "---\ntitle: \"Hi\\0 there\\e]52;c;eA==\\a\"\ntype: \"capability\\0\"\n---\n\n## Work\n\nx\n",
			"Hi\uFFFD there\uFFFD]52;c;eA==\uFFFD", "capability\uFFFD"},
		{"bold fields and heading", "# Title \x1b[2J\x00\n\n**Type:** knowledge\x00\n\n## Work\n\nx\n",
			"Title \uFFFD[2J\uFFFD", "knowledge\uFFFD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Parse([]byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if tr.Title != tc.title || tr.Type != tc.typ {
				t.Errorf("title %q, type %q; want %q, %q", tr.Title, tr.Type, tc.title, tc.typ)
			}
		})
	}
}

// TestParseKeepsNoCopyOfTheText checks that what Parse returns, its body
// aside (a slice of the input), holds no copy of the whole text: the
// lines it reads are substrings of one copy of it, and a title or field
// kept as such a substring would keep the copy alive with it, 10,000
// traces' worth in a site build.
func TestParseKeepsNoCopyOfTheText(t *testing.T) {
	const n, size = 50, 64 << 10
	text := "---\ntitle: A title\ntags: [a, b]\n---\n# Heading\n**Agent:** czero\n\n## Builds On\nhttps://example.org/x\n\n## Work\n" +
		strings.Repeat("Prose that pads the trace out to its size.\n", size/43)
	live := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := live()
	kept := make([]*Trace, n)
	for i := range kept {
		tr, err := Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		tr.Body = nil
		kept[i] = tr
	}
	after := live()
	runtime.KeepAlive(kept)
	if after > before && after-before > n*size/4 {
		t.Errorf("%d parsed traces of %d kB keep %d kB", n, size>>10, (after-before)>>10)
	}
}

// TestNormalizeKeyBuildsNoReplacer wants a key that is already normal
// read with one allocation, the slice of its words: a Replacer made per
// key built its tables, 1 kB, for every field of every trace of a build.
func TestNormalizeKeyBuildsNoReplacer(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"In_Response-To ", "in response to"},
		{"title", "title"},
	} {
		if got := normalizeKey(tt.in); got != tt.want {
			t.Errorf("normalizeKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	normalizeKey("warm-up")
	if n := testing.AllocsPerRun(100, func() { normalizeKey("title") }); n > 1 {
		t.Errorf("normalizeKey of a normal key allocated %v times", n)
	}
}
