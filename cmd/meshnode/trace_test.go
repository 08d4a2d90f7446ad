package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTraceNewScaffoldsAndPrintsPath(t *testing.T) {
	dir := t.TempDir()
	out, errOut, err := runPublishingCLI(t, "trace", "new", "Backoff that respects Retry-After", "--type", "capability",
		"--category", "rock", "--dir", dir, "--now", "2026-03-01T12:00:00Z")
	if err != nil {
		t.Fatalf("trace new: %v (stderr %q)", err, errOut)
	}
	want := filepath.Join(dir, "traces", "2026-03-01-backoff-that-respects-retry-after.md")
	if strings.TrimSpace(out) != want {
		t.Errorf("stdout = %q, want the path %q", out, want)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"title: Backoff that respects Retry-After\n", "type: capability\n", "category: rock\n", "draft: true\n", "## Evidence\n"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("scaffold lacks %q:\n%s", s, b)
		}
	}
}

func TestTraceNewJoinsUnquotedTitleWords(t *testing.T) {
	dir := t.TempDir()
	out, _, err := runPublishingCLI(t, "trace", "new", "Gaps", "are", "kept", "--dir", dir, "--now", "2026-03-01T12:00:00Z")
	if err != nil || !strings.HasSuffix(strings.TrimSpace(out), "2026-03-01-gaps-are-kept.md") {
		t.Errorf("stdout %q, err %v", out, err)
	}
}

func TestTraceRejectsUsageMistakes(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no subcommand", []string{"trace"}},
		{"unknown subcommand", []string{"trace", "edit", "x"}},
		{"no title", []string{"trace", "new"}},
		{"blank title", []string{"trace", "new", "  "}},
		{"bad --now", []string{"trace", "new", "T", "--now", "yesterday"}},
		{"unknown flag", []string{"trace", "new", "T", "--colour", "red"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runPublishingCLI(t, append(tt.args, "--dir", t.TempDir())...)
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Errorf("err = %v, want a usage error", err)
			}
		})
	}
}

// Piped, as in $EDITOR "$(meshnode trace new …)", stdout is the path alone.
func TestTraceNewPipedPrintsOnlyThePath(t *testing.T) {
	dir := t.TempDir()
	out, errOut, err := runPublishingCLI(t, "trace", "new", "Quiet", "--dir", dir, "--now", "2026-03-01T12:00:00Z")
	if err != nil || out != filepath.Join(dir, "traces", "2026-03-01-quiet.md")+"\n" {
		t.Errorf("stdout %q, err %v", out, err)
	}
	if strings.Contains(errOut, "meshnode:") || !strings.HasPrefix(errOut, "next: edit it") {
		t.Errorf("stderr %q, want the next step without the diagnostic prefix", errOut)
	}
}
