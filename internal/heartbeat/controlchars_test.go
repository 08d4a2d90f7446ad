package heartbeat

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/pgqueue"
	"github.com/meshnode/meshnode/internal/queue/pgtest"
)

// nulPeer serves three traces: one whose MANIFEST type cell holds a NUL,
// one whose title does, and a clean one.
func nulPeer(t *testing.T) *fakePeer {
	t.Helper()
	files := map[string]string{
		"traces/001-a.md": "# A\n\n## Work\n\nTyped with a NUL.\n",
		"traces/002-b.md": "# Evil\x00 title\x1b]0;owned\x07\n\n## Work\n\nTitled with a NUL.\n",
		"traces/003-c.md": "# C\n\n## Work\n\nClean.\n",
	}
	types := []string{"capability\x00", "knowledge", "knowledge"}
	p := newFakePeer(t)
	m := manifest.Manifest{Agent: "nul", Sequence: 3}
	for i, name := range []string{"traces/001-a.md", "traces/002-b.md", "traces/003-c.md"} {
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(i + 1), Hash: manifest.HashBytes([]byte(files[name])),
			File: name, Type: types[i], Status: "pending"})
		p.serve("/nul/"+name, []byte(files[name]))
	}
	p.serve("/nul/MANIFEST.md", m.Format())
	return p
}

// TestNULInPeerMetadataNeverStopsANodeOnPostgreSQL: a NUL in a peer's
// MANIFEST type cell or a trace's title made every heartbeat of a node
// whose queue is in PostgreSQL exit 1 (22P05), for good (issue 18, item
// 5). Metadata is cleaned where it is parsed, so all three traces are
// queued, with U+FFFD where the NUL was, and heartbeats go on.
func TestNULInPeerMetadataNeverStopsANodeOnPostgreSQL(t *testing.T) {
	srv := pgtest.Start(t)
	dsn := srv.NewDatabase(t)
	p := nulPeer(t)
	dir := newNode(t, [][2]string{{"nul", p.URL + "/nul/"}}, "")
	t.Setenv(pgqueue.EnvDSN, dsn)

	if sum := beat(t, dir, testNow); sum.Queued != 3 {
		t.Fatalf("first heartbeat queued %d, want 3", sum.Queued)
	}
	beat(t, dir, testNow.Add(cursorStep))
	store, err := pgqueue.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	items, err := store.List()
	if err != nil {
		t.Fatal(err)
	}
	byType := map[string]int{}
	for _, it := range items {
		byType[it.Type]++
		if strings.ContainsAny(it.Type+it.Title, "\x00\x1b\x07") {
			t.Errorf("item %s keeps a control character: type %q, title %q", it.ID, it.Type, it.Title)
		}
	}
	if byType["capability\uFFFD"] != 1 {
		t.Errorf("types %v: want the NUL replaced, so the trace is not typed capability", byType)
	}
}

// refusingStore is a queue that refuses the items of one hash, as
// PostgreSQL refuses a value it cannot hold, and keeps the others.
type refusingStore struct {
	queue.Store
	refuse manifest.Hash
}

func (s refusingStore) Enqueue(items ...queue.Item) (int, error) {
	var keep []queue.Item
	var refused []error
	for _, it := range items {
		if it.Hash == s.refuse {
			refused = append(refused, &queue.ItemError{ID: it.ID, Hash: it.Hash, Err: io.ErrUnexpectedEOF})
			continue
		}
		keep = append(keep, it)
	}
	added, err := s.Store.Enqueue(keep...)
	if err != nil {
		return added, err
	}
	return added, errors.Join(refused...)
}

// TestAnItemTheQueueRefusesNeverStopsTheHeartbeat: an item refused by the
// store is logged, the others are queued, and the heartbeat saves its
// state and ends well.
func TestAnItemTheQueueRefusesNeverStopsTheHeartbeat(t *testing.T) {
	p := nulPeer(t)
	dir := newNode(t, [][2]string{{"nul", p.URL + "/nul/"}}, "")
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	q := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile)))
	if err := q.Init(); err != nil {
		t.Fatal(err)
	}
	refused := manifest.HashBytes([]byte("# C\n\n## Work\n\nClean.\n"))
	var logs strings.Builder
	sum, err := Run(context.Background(), Options{Dir: dir, Config: cfg, Now: func() time.Time { return testNow },
		Queue: refusingStore{Store: q, refuse: refused}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatalf("the heartbeat stopped on one refused item: %v", err)
	}
	if sum.Queued != 2 {
		t.Errorf("queued %d, want the 2 others", sum.Queued)
	}
	if !strings.Contains(logs.String(), "trace not queued") || !strings.Contains(logs.String(), string(refused)) {
		t.Errorf("the refused item is not logged:\n%s", logs.String())
	}
	if st := loadState(t, dir); st.Cursors[p.URL+"/nul/"] == nil || st.Cursors[p.URL+"/nul/"].LastSeenSeq != 3 {
		t.Error("the state was not saved")
	}
}
