package watch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/pgqueue"
	"github.com/meshnode/meshnode/internal/queue/pgtest"
	"github.com/meshnode/meshnode/internal/slowtest"
)

// TestWatchOnPostgreSQL runs the watcher with its queue in a real
// PostgreSQL server: its ticks enqueue there, not in mesh-state/, the alert
// and /poll read it, and /poll skip settles an item there.
func TestWatchOnPostgreSQL(t *testing.T) {
	slowtest.Require(t)
	srv := pgtest.Start(t)
	store, err := pgqueue.Open(srv.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	if err := store.Init(); err != nil {
		t.Fatal(err)
	}
	ada := newPeer(t, "ada", 2)
	h := newHarnessWith(t, "watch:\n  enabled: true\n", func(o *Options) {
		o.Queue = store.WithNow(o.Now)
	}, ada)
	alerts := only(h.tick(), EventAlert)
	if len(alerts) != 1 || alerts[0].Message != "inbox +2: ada/1 ada/2" {
		t.Fatalf("alerts %+v, want one naming ada/1 and ada/2", alerts)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "mesh-state", "queue")); !os.IsNotExist(err) {
		t.Fatalf("the watcher on PostgreSQL wrote a file queue (%v)", err)
	}
	inbox := only(h.send("/poll", EventInbox), EventInbox)
	if len(inbox) != 1 || len(inbox[0].Items) != 2 {
		t.Fatalf("/poll = %+v, want the 2 items of the database", inbox)
	}
	id := inbox[0].Items[0].ID
	h.send("/poll skip "+id+" not for us", EventStatus)
	items, err := store.List()
	if err != nil {
		t.Fatal(err)
	}
	if items[0].ID != id || items[0].Status != queue.StatusSkipped || items[0].Reason != "not for us" {
		t.Fatalf("item in the database after /poll skip: %+v", items[0])
	}
	h.advance(time.Minute)
	if alerts := only(h.tick(), EventAlert); len(alerts) != 0 {
		t.Fatalf("a tick with nothing new alerted: %+v", alerts)
	}
}
