package heartbeat

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/filelock"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestTheQueuesMigrationWaitsForTheQueuesLock: `meshnode inbox` and the
// workers write the queue under the queue's own lock, not the heartbeat's,
// so the move of the queue's files per peer into shards takes that lock
// too: an inbox write cannot land between the migration's read of a file
// and its write of the shard, and be lost.
func TestTheQueuesMigrationWaitsForTheQueuesLock(t *testing.T) {
	for _, f := range []string{node.QueueFile, node.QueueSettledFile} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			dir := t.TempDir()
			sub := filepath.Join(dir, statefile.Dir(f))
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			flat := filepath.Join(sub, statefile.PeerFileName("https://ada.example/"))
			if err := os.WriteFile(flat, []byte("{\"items\": {}}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			unlock, err := filelock.Lock(filepath.Join(dir, node.QueueFile) + ".lock")
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- migrateState(dir, f) }()
			select {
			case err := <-done:
				unlock()
				t.Fatalf("the migration ran while the queue's lock was held (err %v)", err)
			case <-time.After(300 * time.Millisecond):
			}
			if _, err := os.Stat(flat); err != nil {
				t.Errorf("the file per peer moved while the queue's lock was held: %v", err)
			}
			unlock()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(flat); err == nil {
				t.Error("the file per peer was not moved into its shard once the lock was free")
			}
		})
	}
}

// TestTheQueuesTemporaryFilesAreRemovedUnderTheQueuesLock: a temporary
// file in the queue's directories may be an inbox write in progress, not
// one a killed heartbeat left, so the heartbeat removes them only under
// the queue's lock.
func TestTheQueuesTemporaryFilesAreRemovedUnderTheQueuesLock(t *testing.T) {
	dir := t.TempDir()
	sub := statefile.Dir(node.QueueFile)
	if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := filelock.Lock(filepath.Join(dir, node.QueueFile) + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- removeTempsIn(dir, sub) }()
	select {
	case err := <-done:
		unlock()
		t.Fatalf("the queue's temporary files were removed while its lock was held (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
