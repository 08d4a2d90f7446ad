package heartbeat

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/pgqueue"
	"github.com/meshnode/meshnode/internal/queue/pgtest"
	"github.com/meshnode/meshnode/internal/queue/queuetest"
	"github.com/meshnode/meshnode/internal/queue/worker"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestNodeOnPostgreSQLPublishesWorkersResults runs, against a real
// PostgreSQL server, a node whose queue MESHNODE_QUEUE_DSN names beside a
// twin node on the file queue. The heartbeat enqueues into the database
// (nothing in mesh-state/queue), a worker with no node directory scores
// every item there, and the next heartbeat with standing publishes the
// stored results: byte for byte the validation files the twin's own scorer
// wrote, the same summary count, and never a second time.
func TestNodeOnPostgreSQLPublishesWorkersResults(t *testing.T) {
	srv := pgtest.Start(t)
	dsn := srv.NewDatabase(t)
	good := goodPeer(t)
	defer good.Close()
	peers := [][2]string{{"good", good.URL + "/"}}
	twin, node := newNode(t, peers, ""), newNode(t, peers, "")

	beat(t, twin, testNow)
	t.Setenv(pgqueue.EnvDSN, dsn)
	if sum := beat(t, node, testNow); sum.Queued != 2 || sum.ValidationsPublished != 0 {
		t.Fatalf("first heartbeat on PostgreSQL: %d queued, %d published; want 2, 0 (no standing yet)", sum.Queued, sum.ValidationsPublished)
	}
	if _, err := os.Stat(filepath.Join(node, "mesh-state", "queue")); !os.IsNotExist(err) {
		t.Fatalf("the node on PostgreSQL wrote a file queue (%v)", err)
	}
	store, err := pgqueue.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	h, err := score.New(score.KindHeuristic, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := &worker.Worker{Store: store, Owner: "w1", Scorer: h, Client: fetch.New(fetch.Options{AllowPrivate: true}),
		Now: func() time.Time { return testNow.Add(10 * time.Minute) }}
	if st, err := w.Run(context.Background()); err != nil || st.Done != 2 {
		t.Fatalf("worker: %+v, %v; want 2 done", st, err)
	}

	later := testNow.Add(30 * time.Minute)
	for _, dir := range []string{twin, node} {
		write(t, dir, signal.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	}
	t.Setenv(pgqueue.EnvDSN, "")
	own := beat(t, twin, later)
	t.Setenv(pgqueue.EnvDSN, dsn)
	stored := beat(t, node, later)
	if own.ValidationsPublished != 2 || stored.ValidationsPublished != own.ValidationsPublished {
		t.Fatalf("validations_published: %d from stored results, %d by the node's own scorer; want 2 and 2",
			stored.ValidationsPublished, own.ValidationsPublished)
	}
	want := validationFiles(t, twin)
	got := validationFiles(t, node)
	if len(got) != 2 || len(got) != len(want) {
		t.Fatalf("%d validation files from stored results, %d by the scorer", len(got), len(want))
	}
	for name, data := range want {
		if !bytes.Equal(got[name], data) {
			t.Errorf("%s from the stored result:\n%s\nby the node's own scorer:\n%s", name, got[name], data)
		}
	}

	if sum := beat(t, node, later.Add(time.Hour)); sum.ValidationsPublished != 0 {
		t.Errorf("the next heartbeat published %d validations again", sum.ValidationsPublished)
	}
	items, err := store.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Status != queue.StatusDone || it.Result == nil || !it.Result.PublishedAt.Equal(later) {
			t.Errorf("%s: %s, result %+v; want done, published at %s", it.ID, it.Status, it.Result, later)
		}
	}
	if again := validationFiles(t, node); len(again) != 2 {
		t.Errorf("%d validation files after a third heartbeat, want 2", len(again))
	}
}

// TestStoredResultsWaitForStanding: without standing a node publishes no
// stored result, as its own scorer scores nothing.
func TestStoredResultsWaitForStanding(t *testing.T) {
	good := goodPeer(t)
	defer good.Close()
	dir := newNode(t, [][2]string{{"good", good.URL + "/"}}, "")
	beat(t, dir, testNow)
	q := openQueue(t, dir) // settled items are kept a week from then
	got, err := q.Claim(queue.Claim{Owner: "w", Now: testNow, Max: 1})
	if err != nil || len(got) != 1 {
		t.Fatalf("claim: %v, %v", got, err)
	}
	res := &queue.Result{Scores: [6]int{4, 4, 4, 4, 4, 4}, Scorer: "command", ScoredAt: testNow}
	queuetest.FinishDone(t, q, got[0], "w", res, testNow)
	if sum := beat(t, dir, testNow.Add(time.Hour)); sum.ValidationsPublished != 0 {
		t.Fatalf("published %d stored results without standing", sum.ValidationsPublished)
	}
	write(t, dir, signal.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	// With standing the node's scorer scores the other item, and the
	// stored result is published: two files, each counted once.
	if sum := beat(t, dir, testNow.Add(2*time.Hour)); sum.ValidationsPublished != 2 {
		t.Fatalf("published %d with standing, want 2 (one scored, one stored)", sum.ValidationsPublished)
	}
}

// TestStoredResultOfAnUnverifiedTraceIsNotPublished: a result stored in
// the queue for a trace the node never fetched (whoever can write a shared
// queue's database could store one) is never published as a validation.
func TestStoredResultOfAnUnverifiedTraceIsNotPublished(t *testing.T) {
	good := goodPeer(t)
	defer good.Close()
	dir := newNode(t, [][2]string{{"good", good.URL + "/"}}, "")
	write(t, dir, signal.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	q := openQueue(t, dir)
	forged := manifest.HashBytes([]byte("a trace nobody served"))
	if _, err := q.Enqueue(queue.Item{ID: forged.Hex(12), Hash: forged, From: "good", FromURL: good.URL + "/",
		TraceURL: good.URL + "/traces/forged.md", QueuedAt: testNow}); err != nil {
		t.Fatal(err)
	}
	got, err := q.Claim(queue.Claim{Owner: "w", Now: testNow, Max: 1, Filter: func(it queue.Item) bool { return it.Hash == forged }})
	if err != nil || len(got) != 1 {
		t.Fatalf("claim: %v, %v", got, err)
	}
	res := &queue.Result{Scores: [6]int{5, 5, 5, 5, 5, 5}, Scorer: "command", ScoredAt: testNow}
	queuetest.FinishDone(t, q, got[0], "w", res, testNow)
	beat(t, dir, testNow.Add(time.Hour))
	if _, ok := validationFiles(t, dir)[validation.FileName(forged)]; ok {
		t.Errorf("a validation of %s, a trace the node never fetched, was published", forged)
	}
}

func validationFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, node.ValidationsDir))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, node.ValidationsDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = data
	}
	return out
}

// TestStoredResultGetsTheScorersBounds: a worker's result with 2 MiB of
// notes (bb3f4e4 published it whole, a 2 MiB validation listed in
// MANIFEST.md that peers refuse to read) is published with the notes the
// node's own scorer would be allowed: one line of at most 500 bytes.
func TestStoredResultGetsTheScorersBounds(t *testing.T) {
	good := goodPeer(t)
	defer good.Close()
	dir := newNode(t, [][2]string{{"good", good.URL + "/"}}, "")
	beat(t, dir, testNow)
	q := openQueue(t, dir)
	got, err := q.Claim(queue.Claim{Owner: "w", Now: testNow, Max: 1})
	if err != nil || len(got) != 1 {
		t.Fatalf("claim: %v, %v", got, err)
	}
	notes := strings.Repeat("word \n\t", 2<<20/7)
	res := &queue.Result{Scores: [6]int{4, 4, 4, 4, 4, 4}, Notes: notes, Scorer: "command", ScoredAt: testNow}
	queuetest.FinishDone(t, q, got[0], "w", res, testNow)
	write(t, dir, signal.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	beat(t, dir, testNow.Add(time.Hour))
	data, ok := validationFiles(t, dir)[validation.FileName(got[0].Hash)]
	if !ok {
		t.Fatal("the stored result was not published")
	}
	v, err := validation.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := validation.CleanNotes(notes); v.Notes != want || len(data) > 2<<10 {
		t.Errorf("published %d bytes with notes of %d bytes, want the scorer's bound (%d bytes)", len(data), len(v.Notes), len(want))
	}
}

// TestStoredResultsShareThePeersBudget: results workers stored count
// against what one peer can make us publish in a heartbeat, like the
// node's own scorer's; the one held back is published at the next.
func TestStoredResultsShareThePeersBudget(t *testing.T) {
	good := goodPeer(t)
	defer good.Close()
	dir := newNode(t, [][2]string{{"good", good.URL + "/"}}, "")
	beat(t, dir, testNow)
	q := openQueue(t, dir)
	got, err := q.Claim(queue.Claim{Owner: "w", Now: testNow})
	if err != nil || len(got) != 2 {
		t.Fatalf("claim: %v, %v", got, err)
	}
	for _, it := range got {
		res := &queue.Result{Scores: [6]int{4, 4, 4, 4, 4, 4}, Scorer: "command", ScoredAt: testNow}
		queuetest.FinishDone(t, q, it, "w", res, testNow)
	}
	write(t, dir, signal.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	l := pubLimits{perPeer: 1, perPeerDay: 10, perHeartbeat: 10, queuedPerPeer: 10, queued: 10}
	sum := beatLimited(t, dir, testNow.Add(time.Hour), &l)
	if sum.ValidationsPublished != 1 || len(sum.HeldBack) != 1 || sum.HeldBack[0].Count != 1 {
		t.Fatalf("published %d, held back %+v; want 1 and 1", sum.ValidationsPublished, sum.HeldBack)
	}
	if sum := beatLimited(t, dir, testNow.Add(2*time.Hour), &l); sum.ValidationsPublished != 1 {
		t.Errorf("the next heartbeat published %d, want the one held back", sum.ValidationsPublished)
	}
	if n := len(validationFiles(t, dir)); n != 2 {
		t.Errorf("%d validation files, want 2", n)
	}
}
