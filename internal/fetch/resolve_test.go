package fetch

import (
	"bufio"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
)

const testBase = "https://mycelnet.ai/basecamp/agents-hosted/noobagent/"

func TestResolveWithinAcceptsPathsUnderTheBase(t *testing.T) {
	tests := []struct {
		name, base, file, want string
	}{
		{"plain trace", testBase, "traces/001-first-trace.md", testBase + "traces/001-first-trace.md"},
		{"validation", testBase, "validations/val-0123456789ab.md", testBase + "validations/val-0123456789ab.md"},
		{"base without trailing slash", strings.TrimSuffix(testBase, "/"), "traces/a.md", testBase + "traces/a.md"},
		{"absolute URL under the base", testBase, testBase + "traces/a.md", testBase + "traces/a.md"},
		{"root path under the base", testBase, "/basecamp/agents-hosted/noobagent/traces/a.md", testBase + "traces/a.md"},
		{"host case ignored", "https://MycelNet.AI/x/", "https://mycelnet.ai/x/a.md", "https://mycelnet.ai/x/a.md"},
		{"space is escaped", testBase, "traces/a b.md", testBase + "traces/a%20b.md"},
		{"percent-encoded letters decoded", testBase, "traces/%61.md", testBase + "traces/a.md"},
		{"unicode kept", testBase, "traces/café.md", testBase + "traces/caf%C3%A9.md"},
		{"colon after a slash is a path", testBase, "traces/a:b.md", testBase + "traces/a:b.md"},
		{"dots inside a name", testBase, "traces/..a..md", testBase + "traces/..a..md"},
		{"root base", "http://127.0.0.1:8080", "MANIFEST.md", "http://127.0.0.1:8080/MANIFEST.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveWithin(tt.base, tt.file)
			if err != nil {
				t.Fatalf("ResolveWithin(%q, %q): %v", tt.base, tt.file, err)
			}
			if got != tt.want {
				t.Errorf("ResolveWithin(%q, %q) = %q, want %q", tt.base, tt.file, got, tt.want)
			}
		})
	}
}

func TestResolveWithinRefusesPathsLeavingTheBase(t *testing.T) {
	for _, file := range hostileFiles(t) {
		t.Run(file, func(t *testing.T) {
			got, err := ResolveWithin(testBase, file)
			if err == nil {
				t.Fatalf("ResolveWithin(%q) = %q, want an error", file, got)
			}
			wantKind(t, err, KindBadURL)
		})
	}
	for _, tt := range []struct{ name, file string }{
		{"empty", ""},
		{"too long", strings.Repeat("a/", maxFileLen)},
		{"invalid UTF-8", "traces/\xff.md"},
		{"control character", "traces/a\x7f.md"},
		{"the base itself", testBase},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := ResolveWithin(testBase, tt.file); err == nil {
				t.Errorf("ResolveWithin(%q) = %q, want an error", tt.file, got)
			}
		})
	}
}

func TestResolveWithinRefusesBadBases(t *testing.T) {
	for _, base := range []string{"", "mycelnet.ai/x/", "ftp://mycelnet.ai/x/", "https://mycelnet.ai/x/?q=1", "https://u:p@mycelnet.ai/x/"} {
		t.Run(base, func(t *testing.T) {
			if got, err := ResolveWithin(base, "traces/a.md"); err == nil {
				t.Errorf("ResolveWithin(%q) = %q, want an error", base, got)
			}
		})
	}
}

// TestResolveWithinAcceptsEveryCorpusFile resolves every file column of the
// real mesh's manifests under its agent's base URL.
func TestResolveWithinAcceptsEveryCorpusFile(t *testing.T) {
	dir := corpustest.Dir(t)
	files := corpusFiles(t, dir)
	if len(files) < 800 {
		t.Fatalf("found %d file columns in the corpus, expected over 800", len(files))
	}
	for _, f := range files {
		got, err := ResolveWithin(f.base, f.file)
		if err != nil {
			t.Errorf("%s: %v", f.file, err)
			continue
		}
		if got != f.base+f.file {
			t.Errorf("ResolveWithin(%q, %q) = %q", f.base, f.file, got)
		}
	}
}

func FuzzResolveWithin(f *testing.F) {
	for _, file := range hostileFiles(f) {
		f.Add(testBase, file)
	}
	f.Add(testBase, "traces/001-first-trace.md")
	f.Add("http://127.0.0.1:8080", "a/b.md")
	if dir, ok := corpustest.Find(); ok {
		for i, cf := range corpusFiles(f, dir) {
			if i%50 == 0 {
				f.Add(cf.base, cf.file)
			}
		}
	}
	f.Fuzz(func(t *testing.T, base, file string) {
		got, err := ResolveWithin(base, file)
		if err != nil {
			return
		}
		checkWithin(t, base, file, got)
		again, err := ResolveWithin(base, got)
		if err != nil || again != got {
			t.Fatalf("resolving the result again: %q, %v; want %q", again, err, got)
		}
	})
}

// checkWithin asserts got is an http(s) URL on base's host, under base's
// path, with no query, fragment or dot segment.
func checkWithin(t *testing.T, base, file, got string) {
	t.Helper()
	b, _ := parseBase(base)
	u, err := url.Parse(got)
	if err != nil {
		t.Fatalf("ResolveWithin(%q, %q) = %q, which does not parse: %v", base, file, got, err)
	}
	switch {
	case u.Scheme != b.Scheme || !strings.EqualFold(u.Host, b.Host):
		t.Fatalf("ResolveWithin(%q, %q) = %q left the base's origin", base, file, got)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		t.Fatalf("ResolveWithin(%q, %q) = %q has a query, fragment or user", base, file, got)
	case !strings.HasPrefix(u.Path, b.Path) || len(u.Path) == len(b.Path):
		t.Fatalf("ResolveWithin(%q, %q) = %q is not under %q", base, file, got, b.Path)
	}
	for _, seg := range strings.Split(u.Path[len(b.Path):], "/") {
		if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "\\%") {
			t.Fatalf("ResolveWithin(%q, %q) = %q has segment %q", base, file, got, seg)
		}
	}
}

func hostileFiles(tb testing.TB) []string {
	tb.Helper()
	fh, err := os.Open(filepath.Join("testdata", "hostile-files.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	defer fh.Close()
	var out []string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "# ") {
			out = append(out, line)
		}
	}
	return out
}

type corpusFile struct{ base, file string }

// corpusFiles reads the file column of every hosted agent's MANIFEST.md,
// with the agent's base URL from the corpus AGENTS.md.
func corpusFiles(tb testing.TB, dir string) []corpusFile {
	tb.Helper()
	bases := corpusBases(tb, dir)
	var out []corpusFile
	for name, base := range bases {
		data, err := os.ReadFile(filepath.Join(dir, "agents-hosted", name, "MANIFEST.md"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			cols := strings.Split(line, "|")
			if len(cols) < 5 || !strings.HasPrefix(strings.TrimSpace(cols[2]), "sha256:") {
				continue
			}
			out = append(out, corpusFile{base: base, file: strings.TrimSpace(cols[3])})
		}
	}
	return out
}

func corpusBases(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "AGENTS.md"))
	if err != nil {
		tb.Fatal(err)
	}
	bases := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		cols := strings.Split(line, "|")
		if len(cols) == 3 && strings.HasPrefix(strings.TrimSpace(cols[1]), "http") {
			bases[strings.TrimSpace(cols[0])] = strings.TrimSpace(cols[1])
		}
	}
	return bases
}
