package heartbeat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestAValidationFileOfAnotherTraceWithTheSameIDFailsTheItem: the
// node holds validations/val-<id>.md of a trace whose hash shares its
// first 48 bits with gamma's trace (a stranger ground a second preimage of
// the ID of gamma's trace, published it as a pending trace and the node
// validated it first: gamma's reached the queue later, as a reserve
// trace, a late reserve seat, or after the queue's bounds held it back).
// When gamma's trace is scored, prepare finds the file and ends the item
// done with that file's verdict, without looking at its trace_hash: the
// queue says gamma's trace was validated, with another trace's score,
// and no validation of gamma's trace is ever published.
//
// Attack: about 2^48 SHA-256 evaluations for a chosen 12-hex prefix
// (hours on a few GPUs), and a trace of gamma's that this node queues
// later than the stranger's (the reserve steps in two days on). Harm:
// gamma's trace never gets this node's vote (a seat left empty), and the
// queue, the inbox and watch show it done with a verdict about another
// trace. The rule (docs/decisions.md, queue: "an ID is never given to two
// traces"; prepare: "never overwrite, never duplicate. The item ends as
// the run that wrote the file would have ended it"): the file was not
// written for this item, so the item fails, saying which trace the file
// validates, and the file stays as it was.
func TestAValidationFileOfAnotherTraceWithTheSameIDFailsTheItem(t *testing.T) {
	p := newFakePeer(t)
	body := "# Gamma's finding\n\n## Work\n\nMeasured on loopback, twice.\n"
	h := manifest.HashBytes([]byte(body))
	p.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/001-finding.md", body}})
	dir := newNode(t, [][2]string{{"gamma", p.URL + "/gamma/"}}, "")
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")

	// The stranger's trace: the same first 12 hex digits, another hash.
	other := manifest.Hash("sha256:" + h.Hex(12) + strings.Repeat("0", 52))
	if other == h || validation.ID(other) != validation.ID(h) {
		t.Fatalf("setup: %s and %s must differ and share an ID", other, h)
	}
	v := validation.Validation{Validator: "tester", ValidatorURL: "http://127.0.0.1:1/tester/", TraceURL: "https://stranger.example/traces/x.md",
		TraceHash: other, ValidatedAt: testNow.Add(-48 * time.Hour), Result: validation.ResultFail, Total: 6, HasScores: true,
		Scores: validation.Scores{1, 1, 1, 1, 1, 1}, Notes: "Empty."}
	rel := filepath.Join(node.ValidationsDir, validation.FileName(h))
	write(t, dir, filepath.ToSlash(rel), string(v.Format()))

	beat(t, dir, testNow)
	it := queuedItem(t, dir, h)
	if it == nil {
		t.Fatal("setup: gamma's trace was not queued")
	}
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	got, err := validation.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if it.Status == queue.StatusDone && got.TraceHash != h {
		t.Errorf("gamma's item is done (%q) though %s validates %s, not gamma's %s", it.Reason, rel, got.TraceHash, h)
	}
	want := "ID clash: " + filepath.ToSlash(rel) + " validates " + string(other)
	if it.Status != queue.StatusFailed || it.Reason != want {
		t.Errorf("gamma's item is %s (%q), want failed (%q)", it.Status, it.Reason, want)
	}
	if string(data) != string(v.Format()) {
		t.Errorf("%s was rewritten:\n%s", rel, data)
	}
}
