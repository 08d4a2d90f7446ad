package publish

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestScaffoldWritesDraftTemplate(t *testing.T) {
	dir := t.TempDir()
	p, err := Scaffold(dir, "  Polling costs:  what 429s taught us ", "capability", "rock", t0)
	if err != nil {
		t.Fatal(err)
	}
	if p != "traces/2026-03-01-polling-costs-what-429s-taught-us.md" {
		t.Errorf("path = %q", p)
	}
	checkGolden(t, "scaffold.golden", readFile(t, dir, p))
}

func TestScaffoldDefaultsTypeAndCategory(t *testing.T) {
	dir := t.TempDir()
	p, err := Scaffold(dir, "Hello", "", "", t0)
	if err != nil {
		t.Fatal(err)
	}
	fm := frontMatterOf(t, readFile(t, dir, p))
	if fm.Type != DefaultType || fm.Category != DefaultCategory || !fm.Draft {
		t.Errorf("front matter = %+v, want type %s, category %s, draft", fm, DefaultType, DefaultCategory)
	}
}

func TestScaffoldNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "traces/2026-03-01-same.md", "mine, keep me\n")
	var got []string
	for range 3 {
		p, err := Scaffold(dir, "Same", "", "", t0)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	want := []string{"traces/2026-03-01-same-2.md", "traces/2026-03-01-same-3.md", "traces/2026-03-01-same-4.md"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("paths = %v, want %v", got, want)
	}
	if b := readFile(t, dir, "traces/2026-03-01-same.md"); string(b) != "mine, keep me\n" {
		t.Errorf("existing trace overwritten: %q", b)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "traces", ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestScaffoldRejectsEmptyTitle(t *testing.T) {
	for _, title := range []string{"", "   ", "\n\t"} {
		if _, err := Scaffold(t.TempDir(), title, "", "", t0); err == nil {
			t.Errorf("Scaffold(%q) succeeded, want an error", title)
		}
	}
}

func TestScaffoldedTraceIsHeldUntilDraftLineRemoved(t *testing.T) {
	dir := t.TempDir()
	p, err := Scaffold(dir, "My finding", "signal", "pebble", t0)
	if err != nil {
		t.Fatal(err)
	}
	res := mustPublish(t, opts(dir, t0))
	if len(res.NewFiles) != 0 || len(res.Held) != 1 || res.Held[0].File != p {
		t.Fatalf("a fresh scaffold was not held: %+v", res)
	}
	edited := bytes.Replace(readFile(t, dir, p), []byte("draft: true\n"), nil, 1)
	writeFile(t, dir, p, string(edited))
	res = mustPublish(t, opts(dir, t1))
	if len(res.NewFiles) != 1 || res.NewFiles[0].File != p || res.NewFiles[0].Type != "signal" {
		t.Errorf("NewFiles = %+v, want %s of type signal", res.NewFiles, p)
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ name, title, want string }{
		{"words", "Mesh Polling Costs", "mesh-polling-costs"},
		{"punctuation collapses", "Gaps — never skip (forever)!", "gaps-never-skip-forever"},
		{"path tricks are flattened", "../../etc/passwd", "etc-passwd"},
		{"nothing ascii", "日本語", "trace"},
		{"long titles are cut at a word edge", strings.Repeat("abcde ", 20), strings.TrimRight(strings.Repeat("abcde-", 10), "-")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Slug(tt.title); got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q", tt.title, got, tt.want)
			}
		})
	}
}

var scaffoldName = regexp.MustCompile(`^traces/2026-03-01-[a-z0-9]+(-[a-z0-9]+)*\.md$`)

// FuzzScaffold checks that any title, however hostile, gives a file inside
// traces/ whose front matter reads back to the title, or a clean error.
func FuzzScaffold(f *testing.F) {
	for _, s := range []string{"Hello", "title: injected\ndraft: false", "---", "'quoted' \"both\"", "日本語", "a|b|c"} {
		f.Add(s, "knowledge", "pebble")
	}
	f.Fuzz(func(t *testing.T, title, typ, category string) {
		dir := t.TempDir()
		p, err := Scaffold(dir, title, typ, category, t0)
		if err != nil {
			if strings.TrimSpace(title) != "" {
				t.Fatalf("Scaffold(%q): %v", title, err)
			}
			return
		}
		if !scaffoldName.MatchString(p) {
			t.Fatalf("path %q is not a scaffold name", p)
		}
		fm := frontMatterOf(t, readFile(t, dir, p))
		if want := strings.Join(strings.Fields(title), " "); fm.Title != want || !fm.Draft {
			t.Fatalf("front matter title %q draft %v, want %q draft true", fm.Title, fm.Draft, want)
		}
	})
}

func frontMatterOf(t *testing.T, data []byte) frontMatter {
	t.Helper()
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	block, _, found := bytes.Cut(rest, []byte("\n---\n"))
	if !ok || !found {
		t.Fatalf("no front matter in:\n%s", data)
	}
	var fm frontMatter
	if err := yaml.Unmarshal(block, &fm); err != nil {
		t.Fatalf("front matter does not parse: %v\n%s", err, block)
	}
	return fm
}
