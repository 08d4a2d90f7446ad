package node_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestADirectoryAtAValidationsNameIsNotAValidation: a directory standing
// at the name the heartbeat writes a trace's validation to (a merged pull
// request's validations/val-x.md/.gitkeep) publishes nothing, so the item
// fails with the reason instead of being called validated.
func TestADirectoryAtAValidationsNameIsNotAValidation(t *testing.T) {
	dir := newNode(t, servePeer(t))
	name := validation.FileName(manifest.HashBytes([]byte(peerTrace)))
	if err := os.MkdirAll(filepath.Join(dir, node.ValidationsDir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := beat(t, dir)
	if sum.ValidationsPublished != 0 {
		t.Errorf("%d validations published through a directory", sum.ValidationsPublished)
	}
	items, err := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile))).List()
	if err != nil || len(items) != 1 {
		t.Fatalf("queue: %v, %v", items, err)
	}
	if it := items[0]; it.Status != queue.StatusFailed || !strings.Contains(it.Reason, "is taken and cannot be published") {
		t.Errorf("item %s: %q, want failed because its file's name is taken", it.Status, it.Reason)
	}
}
