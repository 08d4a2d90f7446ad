package check

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/publish"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestCheckNeverPassesAChangeToAFileTheBaseHoldsUnpublished: a pull
// request that edits or deletes a file of traces/ or validations/ that the
// base holds but has not published yet. The next heartbeat publishes the
// base's bytes, and the status stays on the pull request's head: on
// 14f1df39 it was green, and merged after that heartbeat (a three-way
// merge takes the edit, since main changed only MANIFEST.md) it changed a
// published file, so that every heartbeat after it refused to publish
// (publish.ImmutableError) until a person restored the file. A file new
// to the base still passes.
func TestCheckNeverPassesAChangeToAFileTheBaseHoldsUnpublished(t *testing.T) {
	pendingTrace := "traces/2026-03-02-new.md"
	pendingVal := "validations/" + validation.FileName(bobTrace)
	cases := []struct {
		name    string
		file    string
		content string // "" deletes the file
		refused bool
	}{
		{"pending trace edited", pendingTrace, "---\ntitle: New finding\n---\n\n# New finding\n\nEdited by a stranger.\n", true},
		{"pending trace deleted", pendingTrace, "", true},
		{"pending validation edited", pendingVal, validationFile(bobTrace, bobTraceURL, "notes: Rescored."), true},
		{"pending validation deleted", pendingVal, "", true},
		{"new trace added", "traces/2026-03-03-other.md", "---\ntitle: Other\n---\n\n# Other\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := cleanNode(t)
			got := checkPR(t, base, c.file, func(pr string) { change(t, pr, c.file, c.content) })
			if refused := strings.Contains(got, "not published yet"); refused != c.refused {
				t.Errorf("refused = %v, want %v; problems:\n%s", refused, c.refused, got)
			}
			if !c.refused {
				return
			}
			// What the merge after the next heartbeat leaves: the base's
			// bytes published, then the pull request's change.
			if _, err := publish.Publish(publish.Options{Dir: base, Agent: agent, URL: ourURL, Now: t0.Add(1)}); err != nil {
				t.Fatal(err)
			}
			change(t, base, c.file, c.content)
			var ie *publish.ImmutableError
			if _, err := publish.Publish(publish.Options{Dir: base, Agent: agent, URL: ourURL, Now: t0.Add(2)}); !errors.As(err, &ie) {
				t.Errorf("setup: the merged change publishes (%v), want an ImmutableError", err)
			}
		})
	}
}

// change writes content to name under dir, or deletes it when content is
// empty.
func change(t *testing.T, dir, name, content string) {
	t.Helper()
	if content != "" {
		write(t, dir, name, content)
		return
	}
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
		t.Fatal(err)
	}
}
