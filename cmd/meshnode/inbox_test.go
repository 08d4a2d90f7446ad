package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/pgqueue"
	"github.com/meshnode/meshnode/internal/queue/pgtest"
	"github.com/meshnode/meshnode/internal/validation"
)

var inboxNow = time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)

// writeInboxNode queues two traces, claims the older and suggests scores
// for the newer.
func writeInboxNode(t *testing.T) (string, *queue.File) {
	t.Helper()
	dir := minimalNode(t)
	q := queue.Open(filepath.Join(dir, "mesh-state", "queue.json"))
	fillInbox(t, q)
	return dir, q
}

// fillInbox queues two traces in q, claims the older and suggests scores
// for the newer.
func fillInbox(t *testing.T, q queue.Store) {
	t.Helper()
	_, err := q.Enqueue(
		queue.Item{ID: "aaaaaaaaaaaa", Hash: manifest.Hash("sha256:" + strings.Repeat("a", 64)), From: "ann", FromURL: "https://ann.example/",
			TraceURL: "https://ann.example/traces/one.md", Type: "knowledge", Seq: 1, QueuedAt: inboxNow.Add(-3 * time.Hour)},
		queue.Item{ID: "bbbbbbbbbbbb", Hash: manifest.Hash("sha256:" + strings.Repeat("b", 64)), From: "bob", FromURL: "https://bob.example/",
			TraceURL: "https://bob.example/traces/two.md", Type: "capability", Seq: 4, QueuedAt: inboxNow.Add(-20 * time.Minute)},
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Claim(queue.Claim{Owner: "runner", Now: inboxNow.Add(-time.Minute), Lease: 2 * time.Minute, Filter: func(it queue.Item) bool { return it.From == "ann" }}); err != nil {
		t.Fatal(err)
	}
	res, err := q.Update(queue.Update{Kind: queue.Suggest, ID: "bbbbbbbbbbbb", At: inboxNow,
		Suggestion: &queue.Suggestion{Scores: validation.Scores{4, 3, 4, 4, 4, 3}, Notes: "solid"}})
	if err != nil || res[0] != nil {
		t.Fatal(err, res)
	}
}

// pgInbox starts PostgreSQL with a database that fillInbox filled, and
// sets MESHNODE_QUEUE_DSN to it: the node's queue is there. It returns the
// queue, closed when the test ends.
func pgInbox(t *testing.T) *pgqueue.Store {
	t.Helper()
	dsn := pgtest.Start(t).NewDatabase(t)
	s, err := pgqueue.Connect(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	fillInbox(t, s)
	t.Setenv(pgqueue.EnvDSN, dsn)
	return s
}

// TestInboxUsesTheNodesPostgreSQLQueue: with MESHNODE_QUEUE_DSN set, the
// heartbeat keeps the node's queue in PostgreSQL, and so inbox lists and
// settles it there, never in mesh-state/.
func TestInboxUsesTheNodesPostgreSQLQueue(t *testing.T) {
	s := pgInbox(t)
	dir := minimalNode(t)
	now := "--now=" + inboxNow.Format(time.RFC3339)
	got, err := runCmd(t, "inbox", "--dir", dir, now)
	if err != nil || !strings.Contains(got, "aaaaaaaaaaaa  knowledge   ann   in_progress  3h ago") || !strings.Contains(got, "bbbbbbbbbbbb  capability  bob   queued       20m ago") {
		t.Fatalf("inbox on the shared queue: %v\n%s", err, got)
	}
	if _, err := runCmd(t, "inbox", "--dir", dir, now, "skip", "bbbbbbbbbbbb", "--reason", "duplicate"); err != nil {
		t.Fatal(err)
	}
	items, err := s.List()
	if err != nil || len(items) != 2 || items[1].Status != queue.StatusSkipped || items[1].Reason != "duplicate" {
		t.Fatalf("shared queue after skip: %+v, %v", items, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "mesh-state", "queue")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("inbox touched the file queue: %v", err)
	}
}

func TestInboxListsQueueOldestFirst(t *testing.T) {
	dir, _ := writeInboxNode(t)
	got, err := runCmd(t, "inbox", "--dir", dir, "--now", inboxNow.Format(time.RFC3339))
	if err != nil {
		t.Fatal(err)
	}
	want := `ID            TYPE        FROM  STATUS       AGE      TRACE                              REASON
aaaaaaaaaaaa  knowledge   ann   in_progress  3h ago   https://ann.example/traces/one.md  -
bbbbbbbbbbbb  capability  bob   queued       20m ago  https://bob.example/traces/two.md  -
`
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestInboxJSONCarriesSchemaFields(t *testing.T) {
	dir, _ := writeInboxNode(t)
	out, err := runCmd(t, "inbox", "--dir", dir, "--now", inboxNow.Format(time.RFC3339), "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("rows %v err %v\n%s", rows, err, out)
	}
	tests := []struct {
		name  string
		row   int
		field string
		want  any
	}{
		{"id", 0, "id", "aaaaaaaaaaaa"},
		{"claimed item names its owner", 0, "owner", "runner"},
		{"age in seconds", 0, "age_seconds", 10800.0},
		{"from", 1, "from", "bob"},
		{"suggested total", 1, "suggested_total", 22.0},
		{"status", 1, "status", "queued"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rows[tt.row][tt.field]; got != tt.want {
				t.Fatalf("row %d %s = %v, want %v", tt.row, tt.field, got, tt.want)
			}
		})
	}
}

func TestInboxActionsSettleOnlyTheNamedItem(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantStatus string
		wantReason string
	}{
		{"skip with a reason", []string{"skip", "bbbbbbbbbbbb", "--reason", "duplicate of ann/1"}, queue.StatusSkipped, "duplicate of ann/1"},
		{"fail without a reason says who", []string{"fail", "bbbbbbbbbbbb"}, queue.StatusFailed, "marked fail by hand"},
		{"done", []string{"done", "bbbbbbbbbbbb"}, queue.StatusDone, "marked done by hand"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, q := writeInboxNode(t)
			out, err := runCmd(t, append([]string{"inbox", "--dir", dir}, tt.args...)...)
			if err != nil || !strings.HasPrefix(out, "bbbbbbbbbbbb: "+tt.wantStatus) {
				t.Fatalf("out %q err %v", out, err)
			}
			items, _ := q.List()
			if items[1].Status != tt.wantStatus || items[1].Reason != tt.wantReason || items[0].Status != queue.StatusInProgress {
				t.Fatalf("items after action: %+v", items)
			}
		})
	}
}

func TestInboxMistakesAreUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown id", []string{"done", "cccccccccccc"}, `inbox: no item "cccccccccccc" in the queue`},
		{"unknown action", []string{"ack", "bbbbbbbbbbbb"}, `inbox: unknown action "ack"`},
		{"action without id", []string{"done"}, "inbox: want no arguments or an action and an ID, got 1 arguments"},
		{"reason without action", []string{"--reason", "x"}, "inbox: --reason needs an action"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := writeInboxNode(t)
			_, err := runCmd(t, append([]string{"inbox", "--dir", dir}, tt.args...)...)
			var ue *usageError
			if !errors.As(err, &ue) || err.Error() != tt.want {
				t.Fatalf("err = %v, want usage error %q", err, tt.want)
			}
		})
	}
}

func TestInboxOnEmptyQueue(t *testing.T) {
	out, err := runCmd(t, "inbox", "--dir", minimalNode(t))
	if err != nil || !strings.Contains(out, "the inbox is empty") {
		t.Fatalf("out %q err %v", out, err)
	}
}

// TestScoreListsTheNodesPostgreSQLQueue: `meshnode score` lists what waits
// for a person from the queue the heartbeat suggests scores in, which is
// PostgreSQL when MESHNODE_QUEUE_DSN is set.
func TestScoreListsTheNodesPostgreSQLQueue(t *testing.T) {
	pgInbox(t)
	dir := scoreNode(t, "manual")
	writeListings(t, dir, []queue.Item{{From: "bob", FromURL: "https://bob.example/", Hash: manifest.Hash("sha256:" + strings.Repeat("b", 64)),
		TraceURL: "https://bob.example/traces/two.md"}})
	got, err := runCmd(t, "score", "--dir", dir)
	if err != nil || !strings.Contains(got, "https://bob.example/traces/two.md") {
		t.Fatalf("score on the shared queue: %v\n%s", err, got)
	}
}
