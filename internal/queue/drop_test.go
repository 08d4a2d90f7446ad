package queue

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDropOfNoItemReadsNothing: a heartbeat closes its claims with a drop,
// almost always of no item; that drop takes no lock and reads no file,
// so it cannot fail where a drop of an item would.
func TestDropOfNoItemReadsNothing(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	q := Open(filepath.Join(blocker, "queue.json"))
	if n, err := q.Drop(); n != 0 || err != nil {
		t.Errorf("drop of no item: %d, %v; want 0 and no error", n, err)
	}
	if _, err := q.Drop("0123456789ab"); err == nil {
		t.Error("drop of an item under a file: no error, so this test proves nothing")
	}
}
