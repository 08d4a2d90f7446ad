package publish

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPublishHoldsBackWhatMustNotBePublished covers the files a person or a
// pull request could leave in traces/ or validations/ that must never reach
// MANIFEST.md or the site: each is held back with a reason, the rest is
// published, and nothing fails.
func TestPublishHoldsBackWhatMustNotBePublished(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(outside, []byte("[remote \"origin\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		setup  func(t *testing.T, dir string)
		file   string
		reason string
	}{
		{"html page", func(t *testing.T, dir string) {
			writeFile(t, dir, "traces/x.html", "<script>alert(1)</script>")
		}, "traces/x.html", "only .md files are published"},
		{"svg image", func(t *testing.T, dir string) {
			writeFile(t, dir, "validations/x.svg", "<svg onload=alert(1)/>")
		}, "validations/x.svg", "only .md files are published"},
		{"255-byte name", func(t *testing.T, dir string) {
			writeFile(t, dir, "traces/"+strings.Repeat("a", 252)+".md", traceText("Long", "knowledge"))
		}, "traces/" + strings.Repeat("a", 252) + ".md", "at most 128"},
		{"newline in a name", func(t *testing.T, dir string) {
			writeFile(t, dir, "traces/a\nb.md", traceText("Newline", "knowledge"))
		}, "traces/a\nb.md", `'\n'`},
		{"pipe in a name", func(t *testing.T, dir string) {
			writeFile(t, dir, "traces/a|b.md", traceText("Pipe", "knowledge"))
		}, "traces/a|b.md", `'|'`},
		{"symlink to a file outside", func(t *testing.T, dir string) {
			if err := os.Symlink(outside, filepath.Join(dir, "traces", "leak.md")); err != nil {
				t.Fatal(err)
			}
		}, "traces/leak.md", "symbolic link"},
		{"validation over the limit peers accept", func(t *testing.T, dir string) {
			writeFile(t, dir, "validations/val-111111111111.md", validationText+strings.Repeat("x", 1<<20))
		}, "validations/val-111111111111.md", "peers refuse a file that large"},
		{"not a validation", func(t *testing.T, dir string) {
			writeFile(t, dir, "validations/notes.md", "# Notes\n\nTo do.\n")
		}, "validations/notes.md", "not a validation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeNode(t, map[string]string{"traces/good.md": traceText("Good", "knowledge")})
			tt.setup(t, dir)
			res := mustPublish(t, opts(dir, t0))
			if len(res.NewFiles) != 1 || res.NewFiles[0].File != "traces/good.md" {
				t.Errorf("published %v, want only traces/good.md", res.NewFiles)
			}
			if len(res.Held) != 1 || res.Held[0].File != tt.file || !strings.Contains(res.Held[0].Reason, tt.reason) {
				t.Fatalf("held %+v, want %q held because %q", res.Held, tt.file, tt.reason)
			}
			if strings.ContainsAny(res.Held[0].Reason, "\n") {
				t.Errorf("reason %q spans lines", res.Held[0].Reason)
			}
		})
	}
}

// TestPublishRefusesAPublishedFileTurnedSymlink: a published file replaced
// by a link stops publication, even when the link's target has the same
// bytes, since the site would ship a link.
func TestPublishRefusesAPublishedFileTurnedSymlink(t *testing.T) {
	dir := writeNode(t, map[string]string{"traces/good.md": traceText("Good", "knowledge")})
	mustPublish(t, opts(dir, t0))
	copyOf := filepath.Join(t.TempDir(), "good.md")
	if err := os.WriteFile(copyOf, readFile(t, dir, "traces/good.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "traces", "good.md")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(copyOf, p); err != nil {
		t.Fatal(err)
	}
	if _, err := Publish(opts(dir, t1)); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Publish over a symlinked published file: %v, want a symbolic link error", err)
	}
}

// TestPublishNamesASymlinkedIdentity: IDENTITY.md or AGENTS.md as a link
// is not the publisher's to publish (the site copies them), but every
// heartbeat names it, since meshnode build refuses it.
func TestPublishNamesASymlinkedIdentity(t *testing.T) {
	dir := writeNode(t, map[string]string{"traces/good.md": traceText("Good", "knowledge")})
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "IDENTITY.md")); err != nil {
		t.Fatal(err)
	}
	res := mustPublish(t, opts(dir, t0))
	if len(res.NewFiles) != 1 || len(res.Held) != 1 || res.Held[0].File != "IDENTITY.md" || !strings.Contains(res.Held[0].Reason, "symbolic link") {
		t.Errorf("published %v, held %+v; want the trace published and IDENTITY.md named", res.NewFiles, res.Held)
	}
}
