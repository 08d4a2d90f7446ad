package queue

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

var update = flag.Bool("update", false, "rewrite golden files")

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// claimOne claims at most one item for owner, as a worker scoring one at a
// time does; nil when there is none.
func claimOne(q Store, owner string, now time.Time, lease time.Duration, filter func(Item) bool) (*Item, error) {
	got, err := q.Claim(Claim{Owner: owner, Now: now, Lease: lease, Max: 1, Filter: filter})
	if err != nil || len(got) == 0 {
		return nil, err
	}
	return &got[0], nil
}

// one applies a single update and returns its result.
func one(q Store, u Update) error {
	res, err := q.Update(u)
	if err != nil {
		return err
	}
	return res[0]
}

func finish(q Store, id, owner string, version int, status, reason string, now time.Time) error {
	return one(q, Update{Kind: Finish, ID: id, Owner: owner, Version: version, Status: status, Reason: reason, At: now})
}

func renew(q Store, id, owner string, version int, now time.Time, lease time.Duration) error {
	return one(q, Update{Kind: Renew, ID: id, Owner: owner, Version: version, At: now, Lease: lease})
}

func suggest(q Store, id string, scores validation.Scores, reasons map[string][]string, notes string, now time.Time) error {
	return one(q, Update{Kind: Suggest, ID: id, At: now, Suggestion: &Suggestion{Scores: scores, Reasons: reasons, Notes: notes}})
}

func newQueue(t testing.TB) (*File, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mesh-state", "queue.json")
	q := Open(p)
	q.Now = func() time.Time { return t0 }
	return q, p
}

func item(n int) Item {
	h := manifest.Hash(fmt.Sprintf("sha256:%012x%052x", n, n))
	return Item{ID: validation.ID(h), Hash: h, From: "jolt37", FromURL: "https://jolt37.example/", TraceURL: fmt.Sprintf("https://jolt37.example/traces/%d.md", n),
		Type: "knowledge", Title: fmt.Sprintf("trace %d", n), Seq: manifest.Seq(n), QueuedAt: t0.Add(time.Duration(n) * time.Minute)}
}

// mustValid fails unless the file on disk decodes: after every call it is
// either the old or the new complete file.
func mustValid(t *testing.T, p string) {
	t.Helper()
	legacy, files, err := statefile.Read(p)
	if err != nil || legacy != nil || len(files) == 0 {
		t.Fatalf("queue files after a call: single file %q, %d files, err %v", legacy, len(files), err)
	}
	for name, data := range files {
		if _, err := decode(data); err != nil {
			t.Fatalf("queue file %s invalid after a call: %v", name, err)
		}
	}
	entries, _ := os.ReadDir(statefile.Dir(p))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestItemLifecycle(t *testing.T) {
	q, p := newQueue(t)
	steps := []struct {
		name string
		do   func() error
		want string // status of item 1 afterwards
	}{
		{"enqueue queues", func() error { _, err := q.Enqueue(item(1)); return err }, StatusQueued},
		{"claim moves to in_progress", func() error {
			it, err := claimOne(q, "w1", t0, 0, nil)
			if err == nil && (it == nil || it.Owner != "w1" || !it.LeaseExpires.Equal(t0.Add(DefaultLease)) || it.Version != 2) {
				err = fmt.Errorf("claimed %+v", it)
			}
			return err
		}, StatusInProgress},
		{"renew extends the lease and keeps the version", func() error {
			if err := renew(q, item(1).ID, "w1", 2, t0.Add(time.Minute), time.Minute); err != nil {
				return err
			}
			items, err := q.List()
			if it := items[0]; err == nil && (it.Version != 2 || !it.LeaseExpires.Equal(t0.Add(2*time.Minute))) {
				err = fmt.Errorf("renewed %+v", it)
			}
			return err
		}, StatusInProgress},
		{"finish with the current version is done", func() error {
			return finish(q, item(1).ID, "w1", 2, StatusDone, "validation published", t0.Add(90*time.Second))
		}, StatusDone},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := st.do(); err != nil {
				t.Fatal(err)
			}
			mustValid(t, p)
			items, err := q.List()
			if err != nil || len(items) != 1 || items[0].Status != st.want {
				t.Fatalf("items = %+v, err %v; want status %s", items, err, st.want)
			}
		})
	}
	items, _ := q.List()
	if it := items[0]; it.Reason != "validation published" || it.Owner != "" || !it.LeaseExpires.IsZero() {
		t.Fatalf("finished item %+v", it)
	}
}

func TestEnqueueIsIdempotentByHash(t *testing.T) {
	q, _ := newQueue(t)
	if n, err := q.Enqueue(item(1), item(2), item(1)); n != 2 || err != nil {
		t.Fatalf("first enqueue added %d, %v", n, err)
	}
	it, _ := claimOne(q, "w", t0, time.Minute, nil)
	if err := finish(q, it.ID, "w", it.Version, StatusDone, "ok", t0); err != nil {
		t.Fatal(err)
	}
	if n, err := q.Enqueue(item(1), item(2)); n != 0 || err != nil {
		t.Fatalf("re-enqueue added %d, %v", n, err)
	}
	items, _ := q.List()
	if items[0].Status != StatusDone || items[1].Status != StatusQueued {
		t.Fatalf("re-enqueue changed items: %+v", items)
	}
}

func TestEnqueueReportsIDClashButKeepsOthers(t *testing.T) {
	q, _ := newQueue(t)
	clash := item(1)
	clash.Hash = "sha256:other"
	n, err := q.Enqueue(item(1), clash, item(2))
	if n != 2 || err == nil || !strings.Contains(err.Error(), "already holds another trace") {
		t.Fatalf("added %d, err %v", n, err)
	}
}

func TestClaimTakesOldestClaimableAndHonoursFilter(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(q *File)
		now    time.Time
		filter func(Item) bool
		want   manifest.Seq // seq claimed; 0 for none
	}{
		{"oldest queued first", func(q *File) {}, t0, nil, 1},
		{"filter skips rejected items", func(q *File) {}, t0, func(it Item) bool { return it.Seq != 1 }, 2},
		{"an unexpired claim is not taken", func(q *File) { claimOne(q, "w1", t0, time.Minute, nil) }, t0.Add(59 * time.Second), nil, 2},
		{"an expired claim is taken over", func(q *File) { claimOne(q, "w1", t0, time.Minute, nil) }, t0.Add(time.Minute), nil, 1},
		{"nothing claimable gives nil", func(q *File) {
			Set(q, item(1).ID, StatusSkipped, "own trace", t0)
			Set(q, item(2).ID, StatusFailed, "scorer", t0)
		}, t0, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := newQueue(t)
			q.Enqueue(item(2), item(1))
			tt.setup(q)
			it, err := claimOne(q, "w2", tt.now, time.Minute, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			var got manifest.Seq
			if it != nil {
				got = it.Seq
			}
			if got != tt.want {
				t.Fatalf("claimed seq %d, want %d (%+v)", got, tt.want, it)
			}
		})
	}
}

func TestStaleVersionIsRejected(t *testing.T) {
	tests := []struct {
		name string
		act  func(q *File, first *Item) error
	}{
		{"finish after takeover", func(q *File, first *Item) error {
			claimOne(q, "w2", t0.Add(3*time.Minute), time.Minute, nil)
			return finish(q, first.ID, "w1", first.Version, StatusDone, "", t0.Add(3*time.Minute))
		}},
		{"renew after takeover", func(q *File, first *Item) error {
			claimOne(q, "w2", t0.Add(3*time.Minute), time.Minute, nil)
			return renew(q, first.ID, "w1", first.Version, t0.Add(3*time.Minute), time.Minute)
		}},
		{"release after takeover", func(q *File, first *Item) error {
			claimOne(q, "w2", t0.Add(3*time.Minute), time.Minute, nil)
			return one(q, Update{Kind: Release, ID: first.ID, Owner: "w1", Version: first.Version, At: t0})
		}},
		{"finish after a person decided", func(q *File, first *Item) error {
			Set(q, first.ID, StatusSkipped, "not worth scoring", t0)
			return finish(q, first.ID, "w1", first.Version, StatusDone, "", t0)
		}},
		{"finish with an old version by the same owner", func(q *File, first *Item) error {
			suggest(q, first.ID, validation.Scores{}, nil, "", t0)
			return finish(q, first.ID, "w1", first.Version, StatusDone, "", t0)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := newQueue(t)
			q.Enqueue(item(1))
			first, _ := claimOne(q, "w1", t0, time.Minute, nil)
			if err := tt.act(q, first); !errors.Is(err, ErrConflict) {
				t.Fatalf("err = %v, want ErrConflict", err)
			}
		})
	}
}

func TestSetActsOnlyOnKnownIDsAndFinalStatuses(t *testing.T) {
	q, _ := newQueue(t)
	q.Enqueue(item(1))
	if err := Set(q, "nope", StatusDone, "", t0); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown id: %v", err)
	}
	if err := Set(q, item(1).ID, StatusQueued, "", t0); err == nil {
		t.Fatal("Set accepted a non-final status")
	}
	if err := Set(q, item(1).ID, StatusFailed, "broken trace", t0); err != nil {
		t.Fatal(err)
	}
}

func TestSuggestStoresProposal(t *testing.T) {
	q, _ := newQueue(t)
	q.Enqueue(item(1))
	err := suggest(q, item(1).ID, validation.Scores{4, 3, 4, 4, 4, 3}, map[string][]string{"substance": {"cites two sources"}}, "solid", t0)
	if err != nil {
		t.Fatal(err)
	}
	items, _ := q.List()
	if s := items[0].Suggested; s == nil || s.Total() != 22 || items[0].SuggestedNotes != "solid" || items[0].Status != StatusQueued {
		t.Fatalf("item %+v", items[0])
	}
	if err := suggest(q, "nope", validation.Scores{}, nil, "", t0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestFileBytesAreDeterministic(t *testing.T) {
	q, p := newQueue(t)
	q.Enqueue(item(2), item(1))
	claimOne(q, "host/42/1", t0, 0, nil)
	suggest(q, item(2).ID, validation.Scores{1, 2, 3, 4, 5, 0}, map[string][]string{"uniqueness": {"b", "a"}}, "n", t0)
	_, files, _ := statefile.Read(p)
	for name, got := range files {
		if name != statefile.PeerFileName("https://jolt37.example/") {
			t.Errorf("unexpected file %s", name)
		}
		golden(t, "queue.golden.json", got)
	}
}

func TestCorruptQueueIsReportedAndKept(t *testing.T) {
	q, p := newQueue(t)
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("{\"items\": {"), 0o644)
	_, err := q.Enqueue(item(1))
	var ce *statefile.CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want *statefile.CorruptError", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "{\"items\": {" {
		t.Fatal("corrupt queue was rewritten")
	}
}

func TestConcurrentClaimsNeverShareAnItem(t *testing.T) {
	const n = 60
	q, p := newQueue(t)
	var items []Item
	for i := 1; i <= n; i++ {
		items = append(items, item(i))
	}
	q.Enqueue(items...)
	var mu sync.Mutex
	got := map[string]string{}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		owner := fmt.Sprintf("w%d", w)
		// Each worker opens its own Queue, as separate processes would.
		wq := Open(p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				it, err := claimOne(wq, owner, t0, time.Minute, nil)
				if err != nil || it == nil {
					return
				}
				mu.Lock()
				if prev, dup := got[it.ID]; dup {
					t.Errorf("%s claimed by %s and %s", it.ID, prev, owner)
				}
				got[it.ID] = owner
				mu.Unlock()
				if err := finish(wq, it.ID, owner, it.Version, StatusDone, "scored", t0); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(got) != n {
		t.Fatalf("claimed %d items, want %d", len(got), n)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if string(got) != string(want) {
		t.Errorf("bytes differ from %s (run with -update and review the diff):\n%s", p, got)
	}
}

func TestClaimResumesOwnItemsFirstWithoutNewVersion(t *testing.T) {
	q, _ := newQueue(t)
	q.Enqueue(item(1), item(2), item(3))
	claimed, _ := claimOne(q, "w", t0, time.Minute, func(it Item) bool { return it.Seq == 2 })
	// Long after the lease: the owner still gets it back first, same
	// version, then the oldest claimable items.
	later := t0.Add(time.Hour)
	got, err := q.Claim(Claim{Owner: "w", Now: later, Lease: time.Minute, Max: 2})
	if err != nil || len(got) != 2 {
		t.Fatalf("claim = %+v, %v; want 2 items", got, err)
	}
	if got[0].ID != claimed.ID || got[0].Version != claimed.Version || !got[0].LeaseExpires.Equal(later.Add(time.Minute)) {
		t.Fatalf("resumed %+v; want %s at version %d, lease extended", got[0], claimed.ID, claimed.Version)
	}
	if got[1].Seq != 1 || got[1].Version != 2 {
		t.Fatalf("then claimed %+v; want seq 1 at version 2", got[1])
	}
	if other, _ := claimOne(q, "other", later, time.Minute, nil); other == nil || other.Seq != 3 {
		t.Fatalf("another owner got %+v; want seq 3, the only item nobody holds", other)
	}
	if err := finish(q, got[0].ID, "w", got[0].Version, StatusDone, "ok", later); err != nil {
		t.Fatalf("finish after resume: %v", err)
	}
	rest, _ := q.Claim(Claim{Owner: "w", Now: later})
	if len(rest) != 1 || rest[0].Seq != 1 {
		t.Fatalf("after finishing, claim = %+v; want only seq 1 back", rest)
	}
}

func TestUpdateBatchAppliesEachAndReportsEach(t *testing.T) {
	q, p := newQueue(t)
	q.Enqueue(item(1), item(2), item(3))
	got, _ := q.Claim(Claim{Owner: "w", Now: t0})
	res, err := q.Update(
		Update{Kind: Finish, ID: got[0].ID, Owner: "w", Version: got[0].Version, Status: StatusDone, Reason: "ok", At: t0},
		Update{Kind: Finish, ID: got[1].ID, Owner: "w", Version: got[1].Version + 7, Status: StatusDone, At: t0},
		Update{Kind: Release, ID: got[2].ID, Owner: "w", Version: got[2].Version, At: t0},
		Update{Kind: Decide, ID: "nope", Status: StatusDone, At: t0},
	)
	if err != nil {
		t.Fatal(err)
	}
	mustValid(t, p)
	if res[0] != nil || !errors.Is(res[1], ErrConflict) || res[2] != nil || !errors.Is(res[3], ErrNotFound) {
		t.Fatalf("results %v; want nil, conflict, nil, not found", res)
	}
	items, _ := q.List()
	want := []string{StatusDone, StatusInProgress, StatusQueued}
	for i, it := range items {
		if it.Status != want[i] {
			t.Errorf("item %d is %s, want %s", i+1, it.Status, want[i])
		}
	}
	if queued, _ := q.Queued(); len(queued) != 1 || queued[0].Seq != 3 || queued[0].Owner != "" {
		t.Errorf("queued = %+v; want the released item 3 alone", queued)
	}
}

func TestInitCreatesAnEmptyQueue(t *testing.T) {
	q, p := newQueue(t)
	if err := q.Init(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(statefile.Dir(p)); err != nil || !fi.IsDir() {
		t.Fatalf("no queue directory after Init: %v", err)
	}
	if items, err := q.List(); err != nil || len(items) != 0 {
		t.Fatalf("list = %v, %v", items, err)
	}
}

func TestSettledItemsLeaveAfterTheRetention(t *testing.T) {
	q, _ := newQueue(t)
	q.Enqueue(item(1), item(2), item(3))
	Set(q, item(1).ID, StatusDone, "pass 20/30", t0)
	Set(q, item(2).ID, StatusFailed, "scorer: boom", t0.Add(time.Hour))
	q.Now = func() time.Time { return t0.Add(SettledRetention + time.Minute) }
	if _, err := q.Enqueue(item(4)); err != nil {
		t.Fatal(err)
	}
	items, _ := q.List()
	var seqs []manifest.Seq
	for _, it := range items {
		seqs = append(seqs, it.Seq)
	}
	if fmt.Sprint(seqs) != "[2 3 4]" {
		t.Fatalf("items after the retention: %v; want the one settled too long ago gone, the rest kept", seqs)
	}
}

func TestOldSingleFileMigrates(t *testing.T) {
	q, p := newQueue(t)
	os.MkdirAll(filepath.Dir(p), 0o755)
	old := "{\n  \"items\": {\n    \"000000000001\": {\"hash\": \"sha256:01\", \"from_url\": \"https://a.example/\", \"status\": \"queued\", \"version\": 1},\n" +
		"    \"000000000002\": {\"hash\": \"sha256:02\", \"from_url\": \"https://b.example/\", \"status\": \"done\", \"updated_at\": \"2026-03-01T11:00:00Z\", \"version\": 3}\n  }\n}\n"
	if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := q.List()
	if err != nil || len(before) != 2 {
		t.Fatalf("the single file lists %+v, %v", before, err)
	}
	if err := q.Init(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("the single file is still there: %v", err)
	}
	_, files, _ := statefile.Read(p)
	if len(files) != 2 {
		t.Fatalf("%d files after the split, want one per peer", len(files))
	}
	after, _ := q.List()
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("items changed by the split:\n%+v\n%+v", before, after)
	}
}
