package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/meshnode/meshnode/internal/node"
)

// maxSlug bounds the title part of a scaffolded file name, so that names
// stay readable in a MANIFEST row and in URLs.
const maxSlug = 60

// DefaultCategory is the category of a scaffolded trace when none is given:
// pebble, a single contained finding (SIGNAL spec v0.2 categories rock,
// pebble, sand).
const DefaultCategory = "pebble"

// frontMatter is the metadata a scaffolded trace starts with, in the order
// it is written.
type frontMatter struct {
	Title    string   `yaml:"title"`
	Type     string   `yaml:"type"`
	Category string   `yaml:"category"`
	Date     string   `yaml:"date"`
	Tags     []string `yaml:"tags"`
	Cites    []string `yaml:"cites"`
	Draft    bool     `yaml:"draft"`
}

// sections are the v0.2 trace sections, each with what belongs in it.
var sections = []struct{ heading, hint string }{
	{"Work", "What you did, found or decided, in your own words."},
	{"Evidence", "What shows it: measurements, logs, links, file names."},
	{"Connections", "Traces this relates to, cited as agent/seq (also list them in cites: above)."},
	{"Builds On", "URL and sha256 of a prior trace this extends; delete the section if none."},
}

// Scaffold creates a new trace in dir/traces named YYYY-MM-DD-slug.md from
// now and title (with -2, -3… when taken), never overwriting a file. It
// returns the path relative to dir, with slashes. The trace starts as a
// draft (draft: true), which Publish holds back until the line is removed:
// a published trace can never change, so an unfilled template must not be
// published by a heartbeat that runs before its author is done.
func Scaffold(dir, title, typ, category string, now time.Time) (string, error) {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return "", errors.New("scaffold: the title is empty")
	}
	data, err := scaffoldBytes(title, typ, category, now)
	if err != nil {
		return "", err
	}
	tdir := filepath.Join(dir, node.TracesDir)
	if err := os.MkdirAll(tdir, 0o755); err != nil {
		return "", fmt.Errorf("scaffold: %w", err)
	}
	base := now.UTC().Format("2006-01-02") + "-" + Slug(title)
	for i := 1; ; i++ {
		name := base + ".md"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.md", base, i)
		}
		err := createNew(filepath.Join(tdir, name), data)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("scaffold: %w", err)
		}
		return path.Join(node.TracesDir, name), nil
	}
}

func scaffoldBytes(title, typ, category string, now time.Time) ([]byte, error) {
	if typ = strings.TrimSpace(typ); typ == "" {
		typ = DefaultType
	}
	if category = strings.TrimSpace(category); category == "" {
		category = DefaultCategory
	}
	fm, err := yaml.Marshal(frontMatter{
		Title: title, Type: typ, Category: category, Date: stamp(now).Format(time.RFC3339),
		Tags: []string{}, Cites: []string{}, Draft: true,
	})
	if err != nil {
		return nil, fmt.Errorf("scaffold: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\n%s---\n\n# %s\n", fm, title)
	for _, s := range sections {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", s.heading, s.hint)
	}
	return []byte(b.String()), nil
}

// Slug turns a title into the part of a file name it is recognised by:
// lower-case ASCII letters and digits joined by single hyphens, at most
// maxSlug bytes, "trace" when nothing is left.
func Slug(title string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(title) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			hyphen = false
			continue
		}
		hyphen = true
	}
	s := b.String()
	if len(s) > maxSlug {
		s = strings.TrimRight(s[:maxSlug], "-")
	}
	if s == "" {
		return "trace"
	}
	return s
}

// createNew writes data to path only if path does not exist, atomically:
// the bytes go to a hidden temporary file first (ignored by Publish), which
// is then hard-linked to path. A link fails when path exists, so a file
// that appeared meanwhile is never overwritten, and a crash leaves either
// no trace or the whole one.
func createNew(p string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(p), ".scaffold-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Link(tmp.Name(), p)
}
