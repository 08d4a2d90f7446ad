package publish

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// protocolStatuses are the statuses docs/protocol.md §3.1 gives a row,
// written there in backquotes.
func protocolStatuses(t *testing.T) map[manifest.Status]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "**3.1 ")
	end := strings.Index(text, "**3.2 ")
	if start < 0 || end < start {
		t.Fatal("docs/protocol.md has no §3.1 before §3.2")
	}
	out := map[manifest.Status]bool{}
	for _, m := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(text[start:end], -1) {
		out[manifest.Status(m[1])] = true
	}
	return out
}

// TestEveryStatusWrittenIsInTheProtocol: a peer written from
// docs/protocol.md alone must know every status our MANIFEST.md holds,
// the one of validation and dispute rows included.
func TestEveryStatusWrittenIsInTheProtocol(t *testing.T) {
	dir := writeNode(t, map[string]string{
		"traces/a.md":                      traceText("A", "knowledge"),
		"validations/val-111111111111.md":  validationText,
		"disputes/dispute-222222222222.md": "# MANIFEST-DISPUTE\n\nagent: x\n",
	})
	o := opts(dir, t0)
	o.Statuses = map[manifest.Hash]manifest.Status{}
	mustPublish(t, o)
	documented := protocolStatuses(t)
	_, rows := published(t, dir)
	if len(rows) != 3 {
		t.Fatalf("published %d rows, want 3: %v", len(rows), rows)
	}
	written := []manifest.Status{manifest.StatusPending, manifest.StatusValidated, manifest.StatusFailed, manifest.StatusContested}
	for _, e := range rows {
		written = append(written, e.Status)
	}
	for _, s := range written {
		if !documented[s] {
			t.Errorf("status %q is written to MANIFEST.md but docs/protocol.md §3.1 does not give it", s)
		}
	}
}
