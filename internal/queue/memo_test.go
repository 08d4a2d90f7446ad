package queue

import (
	"reflect"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/validation"
)

// TestAReadAfterAReadDecodesOnlyTheFilesThatChanged reads the queue as a
// heartbeat does (Init, then Active) and counts the files decoded: the
// second read decodes none (before, every file twice); a file another
// process changed between reads is decoded again, and what it now holds
// is what the read returns.
func TestAReadAfterAReadDecodesOnlyTheFilesThatChanged(t *testing.T) {
	writer, p := newQueue(t)
	var items []Item
	for i, host := range []string{"https://a.example/", "https://b.example/", "https://c.example/"} {
		it := item(i + 1)
		it.FromURL = host
		items = append(items, it)
	}
	if _, err := writer.Enqueue(items...); err != nil {
		t.Fatal(err)
	}
	q := Open(p)
	q.Now = writer.Now
	before := decodes.Load()
	if err := q.Init(); err != nil {
		t.Fatal(err)
	}
	if got := decodes.Load() - before; got != 3 {
		t.Fatalf("Init decoded %d files, want 3", got)
	}
	before = decodes.Load()
	if a, err := q.Active(); err != nil || len(a.Items) != 3 {
		t.Fatalf("Active = %d items, %v; want 3", len(a.Items), err)
	}
	if got := decodes.Load() - before; got != 0 {
		t.Fatalf("Active after Init decoded %d files, want none", got)
	}
	more := item(4)
	more.FromURL = "https://b.example/"
	if _, err := writer.Enqueue(more); err != nil {
		t.Fatal(err)
	}
	before = decodes.Load()
	a, err := q.Active()
	if err != nil || len(a.Items) != 4 {
		t.Fatalf("Active after another process's write = %d items, %v; want 4", len(a.Items), err)
	}
	if got := decodes.Load() - before; got != 1 {
		t.Fatalf("Active decoded %d files after one changed, want 1", got)
	}
}

// TestACallChangesNoItemAnotherReadGets claims and suggests through one
// File, so that its later reads, which reuse what it decoded, must see
// each change once written and nothing of a change not written.
func TestACallChangesNoItemAnotherReadGets(t *testing.T) {
	q, _ := newQueue(t)
	if _, err := q.Enqueue(item(1), item(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Active(); err != nil {
		t.Fatal(err)
	}
	got, err := q.Claim(Claim{Owner: "w", Now: t0, Lease: time.Minute, Max: 1})
	if err != nil || len(got) != 1 {
		t.Fatalf("Claim = %v, %v", got, err)
	}
	if err := suggest(q, item(2).ID, validation.Scores{4, 3, 4, 4, 4, 3}, map[string][]string{"substance": {"cites"}}, "n", t0); err != nil {
		t.Fatal(err)
	}
	a, err := q.Active()
	if err != nil {
		t.Fatal(err)
	}
	a.Items[1].SuggestedReasons["substance"][0] = "changed by a caller"
	a.Items[1].Suggested[0] = 0
	b, err := q.Active()
	if err != nil {
		t.Fatal(err)
	}
	if b.Items[0].Status != StatusInProgress || b.Items[0].Owner != "w" {
		t.Errorf("claimed item read back as %+v", b.Items[0])
	}
	if s := b.Items[1]; s.SuggestedReasons["substance"][0] != "cites" || s.Suggested[0] != 4 {
		t.Errorf("a caller's change of a returned item reached the next read: %+v", s)
	}
}

// TestCloneSharesNoMemory fills every field of an item and of an index,
// clones them, and wants equal values whose pointers, maps and slices are
// the clone's own: a field added to Item or index fails here until the
// fixture, and clone when it holds memory, cover it.
func TestCloneSharesNoMemory(t *testing.T) {
	it := &Item{ID: "i", Hash: "sha256:00", From: "f", FromURL: "u", TraceURL: "t", Type: "knowledge", Title: "x", Seq: 1,
		Submitted: t0, Status: StatusDone, Reason: "r", QueuedAt: t0, UpdatedAt: t0, Owner: "o", LeaseExpires: t0, Version: 2,
		Suggested: &validation.Scores{1}, SuggestedReasons: map[string][]string{"a": {"b"}}, SuggestedNotes: "n",
		Result: &Result{Scores: validation.Scores{2}, Reasons: map[string][]string{"c": {"d"}}, Notes: "n", Scorer: "s", ScoredAt: t0, PublishedAt: t0}}
	ix := &index{Done: []string{"a"}, Failed: []string{"b"}, Skipped: []string{"c"}, Oldest: t0, Back: []string{"d"}, Moves: []Move{{From: "e", To: "f"}}}
	for _, tc := range []struct {
		name      string
		orig, cpy any
	}{
		{"item", it, it.clone()},
		{"result", it.Result, it.clone().Result},
		{"index", ix, ix.clone()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.orig, tc.cpy) {
				t.Fatalf("clone = %+v, want %+v", tc.cpy, tc.orig)
			}
			o, c := reflect.ValueOf(tc.orig).Elem(), reflect.ValueOf(tc.cpy).Elem()
			for i := range o.NumField() {
				f := o.Type().Field(i)
				if o.Field(i).IsZero() {
					t.Errorf("field %s is zero in the fixture: fill it", f.Name)
				}
				switch f.Type.Kind() {
				case reflect.Pointer, reflect.Map, reflect.Slice:
					if o.Field(i).Pointer() == c.Field(i).Pointer() {
						t.Errorf("field %s shares memory with the original", f.Name)
					}
				}
			}
		})
	}
	if &it.SuggestedReasons["a"][0] == &it.clone().SuggestedReasons["a"][0] {
		t.Error("the suggested reasons' lists share memory")
	}
}
