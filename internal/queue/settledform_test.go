package queue

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

// settledFile is the settled file of the peer of item(n) after q's writes.
func settledFile(t *testing.T, p string, n int) string {
	t.Helper()
	return readDir(t, SettledPath(p))[statefile.PeerFileName(item(n).FromURL)]
}

// decideNow settles item(n) by a person's decision at its queue time, as
// the heartbeat's own scorer settles a trace in the heartbeat that queued
// it.
func decideNow(t *testing.T, q *File, n int) {
	t.Helper()
	if err := one(q, Update{Kind: Decide, ID: item(n).ID, Status: StatusFailed, Reason: "fail 3/30", At: item(n).QueuedAt}); err != nil {
		t.Fatal(err)
	}
}

func TestASettledFileLeavesOutTheItemsKeyAndAnUpdateTimeThatIsItsQueueTime(t *testing.T) {
	q, p := newQueue(t)
	if _, err := q.Enqueue(item(1), item(2)); err != nil {
		t.Fatal(err)
	}
	decideNow(t, q, 1)
	later := t0.Add(time.Hour)
	if err := one(q, Update{Kind: Decide, ID: item(2).ID, Status: StatusSkipped, At: later}); err != nil {
		t.Fatal(err)
	}
	data := settledFile(t, p, 1)
	if strings.Contains(data, `"id"`) {
		t.Errorf("the settled file repeats the items' keys:\n%s", data)
	}
	if n := strings.Count(data, `"updated_at"`); n != 1 {
		t.Errorf("%d update times written, want only item 2's, not its queue time:\n%s", n, data)
	}
	items, err := Open(p).List()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Item{}
	for _, it := range items {
		got[it.ID] = it
	}
	if it := got[item(1).ID]; it.ID != item(1).ID || !it.UpdatedAt.Equal(item(1).QueuedAt) {
		t.Errorf("item 1 read back with ID %q, updated %v; want %q, %v", it.ID, it.UpdatedAt, item(1).ID, item(1).QueuedAt)
	}
	if it := got[item(2).ID]; !it.UpdatedAt.Equal(later) {
		t.Errorf("item 2 read back updated %v, want %v", it.UpdatedAt, later)
	}
}

// olderSettledFile is the settled file of the peer of item(1) and
// item(2) as an older node wrote it: every field, an ID under its key,
// the reasons and notes of a suggestion and of a published result.
func olderSettledFile() string {
	it := item(1)
	return `{
  "items": {
    "` + it.ID + `": {
      "id": "` + it.ID + `",
      "hash": "` + string(it.Hash) + `",
      "from": "jolt37",
      "from_url": "https://jolt37.example/",
      "trace_url": "https://jolt37.example/traces/1.md",
      "type": "knowledge",
      "title": "trace 1",
      "seq": 1,
      "status": "done",
      "reason": "scored",
      "queued_at": "2026-03-01T12:01:00Z",
      "updated_at": "2026-03-01T12:01:00Z",
      "version": 4,
      "suggested": [4, 3, 5, 2, 4, 3],
      "suggested_reasons": {"substance": ["dense"]},
      "suggested_notes": "solid",
      "result": {"scores": [4, 3, 5, 2, 4, 3], "reasons": {"substance": ["dense"]}, "notes": "solid", "scorer": "command",
        "scored_at": "2026-03-01T12:01:00Z", "published_at": "2026-03-01T12:01:00Z"}
    }
  }
}
`
}

func TestAnOlderNodesSettledFileReadsAsTheNewFormAndStaysUntilItChanges(t *testing.T) {
	q, p := newQueue(t)
	name := statefile.PeerFileName(item(1).FromURL)
	older := olderSettledFile()
	writeFile(t, filepath.Join(statefile.Dir(SettledPath(p)), name), older)
	writeFile(t, filepath.Join(statefile.Dir(p), name),
		`{"items": {}, "settled": {"done": ["`+item(1).ID+`"], "oldest": "2026-03-01T12:01:00Z"}}`)
	before, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	// The same trace listed again loads the peer's settled file and
	// changes nothing: the file is not rewritten in the new form.
	if added, err := q.Enqueue(item(1)); err != nil || added != 0 {
		t.Fatalf("enqueue of a settled trace: added %d, err %v", added, err)
	}
	if got := settledFile(t, p, 1); got != older {
		t.Errorf("an unchanged settled file was rewritten:\n%s", got)
	}
	// A change of that peer's items writes the new form, which reads
	// back as the older one did.
	if _, err := q.Enqueue(item(2)); err != nil {
		t.Fatal(err)
	}
	decideNow(t, q, 2)
	data := settledFile(t, p, 1)
	if strings.Contains(data, `"id"`) || strings.Contains(data, "suggested_reasons") || strings.Contains(data, "suggested_notes") ||
		strings.Contains(data, `"title"`) {
		t.Errorf("the rewritten settled file keeps what nothing reads:\n%s", data)
	}
	after, err := Open(p).List()
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 1 || len(after) != 2 || !reflect.DeepEqual(before[0], after[0]) {
		t.Errorf("item 1 read from the older file and from the new:\n%+v\n%+v", before, after)
	}
}

func TestASettledItemForgetsWhatOnlyAWaitingItemsScorerReads(t *testing.T) {
	q, p := newQueue(t)
	if _, err := q.Enqueue(item(1), item(2)); err != nil {
		t.Fatal(err)
	}
	reasons := map[string][]string{"substance": {"cites"}}
	if err := suggest(q, item(1).ID, validation.Scores{4, 3, 5, 2, 4, 3}, reasons, "solid", t0); err != nil {
		t.Fatal(err)
	}
	decideNow(t, q, 1)
	claimed, err := claimOne(q, "w", t0, 0, nil)
	if err != nil || claimed == nil {
		t.Fatalf("claim: %v, %v", claimed, err)
	}
	res := &Result{Scores: validation.Scores{4, 3, 5, 2, 4, 3}, Reasons: reasons, Notes: "solid", Scorer: "command", ScoredAt: t0}
	if err := one(q, Update{Kind: Finish, ID: claimed.ID, Owner: "w", Version: claimed.Version, Status: StatusDone, Result: res, At: t0}); err != nil {
		t.Fatal(err)
	}
	waiting := byIDOf(t, q)[claimed.ID]
	if waiting.Result == nil || waiting.Result.Notes != "solid" || len(waiting.Result.Reasons) != 1 {
		t.Fatalf("a result still to publish lost its notes or reasons: %+v", waiting.Result)
	}
	if err := one(q, Update{Kind: Publish, ID: claimed.ID, At: t0}); err != nil {
		t.Fatal(err)
	}
	for _, it := range byIDOf(t, Open(p)) {
		if it.Suggested == nil && it.ID == item(1).ID {
			t.Errorf("%s lost its suggested scores, which the inbox shows", it.ID)
		}
		if it.SuggestedReasons != nil || it.SuggestedNotes != "" {
			t.Errorf("%s settled keeps its suggestion's reasons or notes", it.ID)
		}
		if it.Title != "" {
			t.Errorf("%s settled keeps its title %q, which only a waiting item's scorer reads", it.ID, it.Title)
		}
		if r := it.Result; it.ID == claimed.ID && (r == nil || r.Notes != "solid" || len(r.Reasons) != 1 || r.PublishedAt.IsZero()) {
			t.Errorf("%s settled lost its result's reasons or notes, the only record of what its worker said: %+v", it.ID, r)
		}
	}
	if data := settledFile(t, p, 1); strings.Contains(data, "suggested_reasons") || strings.Contains(data, "suggested_notes") ||
		strings.Contains(data, `"title"`) {
		t.Errorf("the settled file keeps a suggestion's reasons or notes, or the title:\n%s", data)
	}
}

// TestASettledItemNeverWaitsAgain is why a settled item may forget what
// only a waiting item's scorer reads: no update takes it back to queued
// or in progress.
func TestASettledItemNeverWaitsAgain(t *testing.T) {
	for _, status := range []string{StatusDone, StatusFailed, StatusSkipped} {
		for _, u := range []Update{
			{Kind: Finish, Status: StatusDone, Owner: "w", Version: 2},
			{Kind: Decide, Status: StatusDone},
			{Kind: Decide, Status: StatusFailed},
			{Kind: Decide, Status: StatusSkipped},
			{Kind: Renew, Owner: "w", Version: 2},
			{Kind: Release, Owner: "w", Version: 2},
			{Kind: Publish},
			{Kind: Suggest, Suggestion: &Suggestion{Scores: validation.Scores{1}}},
		} {
			it := item(1)
			it.Status, it.Version = status, 2
			items := map[string]*Item{it.ID: &it}
			u.ID, u.At = it.ID, t0
			err := u.Apply(items)
			if st := items[it.ID].Status; st == StatusQueued || st == StatusInProgress || !items[it.ID].Settled() {
				t.Errorf("%s item after update kind %d (err %v): %s, settled no more", status, u.Kind, err, st)
			}
		}
	}
}

func byIDOf(t *testing.T, q *File) map[string]Item {
	t.Helper()
	items, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Item{}
	for _, it := range items {
		out[it.ID] = it
	}
	return out
}

func FuzzSettledFile(f *testing.F) {
	f.Add([]byte(olderSettledFile()))
	f.Add([]byte(keyedByIDSettledFile()))
	f.Add([]byte(`{"items": {"` + string(item(3).Hash) + `": {"status": "done", "queued_at": "2026-03-01T12:00:00Z", "version": 3}}}`))
	f.Add([]byte(`{"items": {"sha256:01": {"status": "done"}}}`))
	f.Add([]byte(`{"items": {"000000000001": {"hash": "sha256:01", "status": "failed", "queued_at": "2026-03-01T12:00:00Z", "version": 3}}}`))
	f.Add([]byte(`{"items": {"a": {"id": "b", "status": "done", "updated_at": "0001-01-01T00:00:00Z", "result": {"published_at": "2026-03-01T12:00:00Z"}}}}`))
	if data, err := os.ReadFile(filepath.Join("testdata", "queue.golden.json")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := decode(data)
		if err != nil {
			return
		}
		for _, it := range in.Items {
			it.normalize()
		}
		enc, err := in.encodeSettled()
		if err != nil {
			t.Fatalf("encode decoded items: %v", err)
		}
		back, err := decode(enc)
		if err != nil {
			t.Fatalf("a settled file written does not decode: %v\n%s", err, enc)
		}
		// Compared as the queue file writes them: an empty map is left out
		// (omitempty), so it reads back as nil, which means the same.
		want, err1 := in.encode()
		got, err2 := back.encode()
		if err1 != nil || err2 != nil || !bytes.Equal(want, got) {
			t.Fatalf("items differ after a settled file's round trip (%v, %v):\n%s\n%s\n%s", err1, err2, want, got, enc)
		}
		again, err := back.encodeSettled()
		if err != nil || string(again) != string(enc) {
			t.Fatalf("a settled file's bytes are not stable (%v):\n%s\n%s", err, enc, again)
		}
	})
}

// TestOnlyAnOlderSettledFileIsDecodedAgain: a write compares a changed
// settled file's old bytes with its new ones item by item (a decode and an
// encode more) only when the old bytes may be the older form; the new
// form, every file a heartbeat with news rewrites, is never decoded again.
func TestOnlyAnOlderSettledFileIsDecodedAgain(t *testing.T) {
	if !olderSettled([]byte(olderSettledFile())) {
		t.Error("an older node's settled file is not taken for the older form")
	}
	old, err := decode([]byte(olderSettledFile()))
	if err != nil {
		t.Fatal(err)
	}
	old.Items[item(2).ID] = &Item{Hash: item(2).Hash, Title: `the "id": and "hash": of it`, Status: StatusDone, QueuedAt: t0}
	data, err := old.encodeSettled()
	if err != nil {
		t.Fatal(err)
	}
	if olderSettled(data) {
		t.Errorf("a settled file in the new form is taken for the older form:\n%s", data)
	}
}

// keyedByIDSettledFile is the settled file of the peer of item(1) as
// nodes before settled items were filed under their hash wrote it: the
// item under its ID, with its hash.
func keyedByIDSettledFile() string {
	it := item(1)
	return `{
  "items": {
    "` + it.ID + `": {
      "hash": "` + string(it.Hash) + `",
      "from": "jolt37",
      "from_url": "https://jolt37.example/",
      "trace_url": "https://jolt37.example/traces/1.md",
      "type": "knowledge",
      "seq": 1,
      "status": "failed",
      "reason": "fail 3/30",
      "queued_at": "2026-03-01T12:01:00Z",
      "version": 2
    }
  }
}
`
}

func TestASettledItemIsFiledUnderItsHashWhichGivesItsID(t *testing.T) {
	q, p := newQueue(t)
	if _, err := q.Enqueue(item(1)); err != nil {
		t.Fatal(err)
	}
	decideNow(t, q, 1)
	data := settledFile(t, p, 1)
	if !strings.Contains(data, `"`+string(item(1).Hash)+`": {`) || strings.Contains(data, `"hash"`) ||
		strings.Contains(data, `"`+item(1).ID+`"`) {
		t.Errorf("the settled item is not filed under its hash alone:\n%s", data)
	}
	got := byIDOf(t, Open(p))[item(1).ID]
	if got.ID != item(1).ID || got.Hash != item(1).Hash || got.Status != StatusFailed {
		t.Errorf("read back %+v, want ID %s, hash %s, failed", got, item(1).ID, item(1).Hash)
	}
	// Queueing the trace again is still a no-op, by its hash.
	if added, err := q.Enqueue(item(1)); err != nil || added != 0 {
		t.Errorf("enqueue of the settled trace again: added %d, err %v", added, err)
	}
}

func TestASettledFileKeyedByIDReadsTheSameAndKeepsItsBytesUntilItChanges(t *testing.T) {
	q, p := newQueue(t)
	name := statefile.PeerFileName(item(1).FromURL)
	older := keyedByIDSettledFile()
	writeFile(t, filepath.Join(statefile.Dir(SettledPath(p)), name), older)
	writeFile(t, filepath.Join(statefile.Dir(p), name),
		`{"items": {}, "settled": {"failed": ["`+item(1).ID+`"], "oldest": "2026-03-01T12:01:00Z"}}`)
	before := byIDOf(t, q)[item(1).ID]
	if before.Hash != item(1).Hash || before.Status != StatusFailed {
		t.Fatalf("the older file reads as %+v", before)
	}
	if added, err := q.Enqueue(item(1)); err != nil || added != 0 {
		t.Fatalf("enqueue of a settled trace: added %d, err %v", added, err)
	}
	if got := settledFile(t, p, 1); got != older {
		t.Errorf("an unchanged settled file was rewritten:\n%s", got)
	}
	if _, err := q.Enqueue(item(2)); err != nil {
		t.Fatal(err)
	}
	decideNow(t, q, 2)
	if data := settledFile(t, p, 1); strings.Contains(data, `"hash"`) {
		t.Errorf("the changed file kept the older form:\n%s", data)
	}
	if after := byIDOf(t, Open(p))[item(1).ID]; !reflect.DeepEqual(before, after) {
		t.Errorf("item 1 read from the older file and from the new:\n%+v\n%+v", before, after)
	}
}

func TestASettledFileWithABadHashKeyIsRefusedAndKept(t *testing.T) {
	h := string(item(1).Hash)
	for name, items := range map[string]string{
		"a key that is no hash":         `"sha256:01": {"status": "done"}`,
		"a hash that is not its key":    `"` + h + `": {"hash": "` + string(item(2).Hash) + `", "status": "done"}`,
		"one item under its ID and key": `"` + h + `": {"status": "done"}, "` + item(1).ID + `": {"hash": "` + h + `", "status": "done"}`,
	} {
		t.Run(name, func(t *testing.T) {
			q, p := newQueue(t)
			file := filepath.Join(statefile.Dir(SettledPath(p)), statefile.PeerFileName(item(1).FromURL))
			bad := `{"items": {` + items + `}}` + "\n"
			writeFile(t, file, bad)
			writeFile(t, filepath.Join(statefile.Dir(p), statefile.PeerFileName(item(1).FromURL)),
				`{"items": {}, "settled": {"done": ["`+item(1).ID+`"], "oldest": "2026-03-01T12:01:00Z"}}`)
			var corrupt *statefile.CorruptError
			if _, err := q.List(); !errors.As(err, &corrupt) {
				t.Fatalf("List of a settled file with %s: %v, want a corrupt file", name, err)
			}
			if got, _ := os.ReadFile(file); string(got) != bad {
				t.Errorf("the refused file changed:\n%s", got)
			}
		})
	}
}
