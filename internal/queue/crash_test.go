package queue

import (
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

// moveCase is one call that moves items between a peer's file of
// mesh-state/queue/ and its settled file: setup brings a queue to the
// state before the call and returns the call's updates.
type moveCase struct {
	name  string
	setup func(t *testing.T, q *File) []Update
}

// TestAMoveStoppedAtAnyWriteLosesNothing: a write that stops after any
// file it writes (a crash: each file is written whole, statefile) leaves
// every item the call touched in its state before the call or after it,
// never in neither, whichever way it moves between mesh-state/queue/ and
// mesh-state/queue-settled/, and the counts agree with the items. The
// next run (Init, then the call again for the items it did not reach)
// ends with the very files of a run that never stopped: no copy is left
// behind.
func TestAMoveStoppedAtAnyWriteLosesNothing(t *testing.T) {
	for _, tc := range moveCases() {
		t.Run(tc.name, func(t *testing.T) {
			want, before, after := uninterrupted(t, tc)
			q, p := newQueue(t)
			call := tc.setup(t, q)
			crashes := snapshotsAtEachWrite(t, filepath.Dir(p), func() {
				if _, err := q.Update(call...); err != nil {
					t.Fatal(err)
				}
			})
			if len(crashes) < 2 {
				t.Fatalf("the call wrote %d files, want a settled file and a queue file at least", len(crashes))
			}
			for i, dir := range crashes {
				p := filepath.Join(dir, filepath.Base(p))
				rest := checkCrashState(t, i, p, call, before, after)
				q := Open(p)
				q.Now = func() time.Time { return t0 }
				if err := q.Init(); err != nil {
					t.Fatalf("crash %d: init: %v", i, err)
				}
				if len(rest) > 0 {
					mustApply(t, q, rest...)
				}
				if got := stateFiles(t, filepath.Dir(p)); !reflect.DeepEqual(got, want) {
					t.Errorf("crash %d: after the next run the files are\n%s\nwant those of a run that never stopped\n%s", i, show(got), show(want))
				}
			}
		})
	}
}

func moveCases() []moveCase {
	withResult := func(u Update) Update {
		u.Result = &Result{Scores: validation.Scores{4, 3, 5, 2, 4, 3}, Scorer: "command", ScoredAt: t0}
		return u
	}
	decide := func(id, status string, at time.Duration) Update {
		return Update{Kind: Decide, ID: id, Status: status, Reason: "a person said so", At: t0.Add(at)}
	}
	// start enqueues n items, claims them all and finishes the first with
	// a result still to publish; it returns the claimed items.
	start := func(t *testing.T, q *File, n int) []Item {
		var its []Item
		for i := 1; i <= n; i++ {
			its = append(its, item(i))
		}
		if _, err := q.Enqueue(its...); err != nil {
			t.Fatal(err)
		}
		got, err := q.Claim(Claim{Owner: "w", Now: t0})
		if err != nil || len(got) != n {
			t.Fatalf("claim: %d items, %v", len(got), err)
		}
		mustApply(t, q, withResult(finishOf(got[0], StatusDone)))
		return got
	}
	return []moveCase{
		{"an item settles", func(t *testing.T, q *File) []Update {
			its := start(t, q, 3)
			mustApply(t, q, finishOf(its[2], StatusDone))
			return []Update{finishOf(its[1], StatusFailed)}
		}},
		{"a done item whose result waits is decided failed", func(t *testing.T, q *File) []Update {
			its := start(t, q, 2)
			mustApply(t, q, finishOf(its[1], StatusDone))
			return []Update{decide(its[0].ID, StatusFailed, time.Minute)}
		}},
		{"a failed item is decided done again and goes back to work", func(t *testing.T, q *File) []Update {
			its := start(t, q, 2)
			mustApply(t, q, finishOf(its[1], StatusDone), decide(its[0].ID, StatusFailed, time.Minute))
			return []Update{decide(its[0].ID, StatusDone, 2*time.Minute)}
		}},
		{"the peer's only settled item goes back to work", func(t *testing.T, q *File) []Update {
			its := start(t, q, 1)
			mustApply(t, q, decide(its[0].ID, StatusFailed, time.Minute))
			return []Update{decide(its[0].ID, StatusDone, 2*time.Minute)}
		}},
		{"one item settles as another goes back to work", func(t *testing.T, q *File) []Update {
			its := start(t, q, 3)
			mustApply(t, q, finishOf(its[2], StatusSkipped), decide(its[0].ID, StatusFailed, time.Minute))
			return []Update{decide(its[0].ID, StatusDone, 2*time.Minute), finishOf(its[1], StatusDone)}
		}},
	}
}

func finishOf(it Item, status string) Update {
	return Update{Kind: Finish, ID: it.ID, Owner: it.Owner, Version: it.Version, Status: status, Reason: "scored", At: t0}
}

func mustApply(t *testing.T, q Store, updates ...Update) {
	t.Helper()
	res, err := q.Update(updates...)
	if err == nil {
		err = errors.Join(res...)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// uninterrupted runs tc without a crash and returns the files it ends
// with, and every item before and after the call, by ID, encoded.
func uninterrupted(t *testing.T, tc moveCase) (files map[string]string, before, after map[string]string) {
	t.Helper()
	q, p := newQueue(t)
	call := tc.setup(t, q)
	before = encodedItems(t, q)
	mustApply(t, q, call...)
	after = encodedItems(t, q)
	if reflect.DeepEqual(before, after) {
		t.Fatal("the call changed nothing")
	}
	return stateFiles(t, filepath.Dir(p)), before, after
}

// checkCrashState fails unless the queue at p, as a crash left it, holds
// every item before or after the call, its counts agreeing; it returns
// the updates of the call whose item is still as before.
func checkCrashState(t *testing.T, i int, p string, call []Update, before, after map[string]string) (rest []Update) {
	t.Helper()
	q := Open(p)
	q.Now = func() time.Time { return t0 }
	got := encodedItems(t, q)
	if len(got) != len(before) {
		t.Errorf("crash %d: %d items, want %d", i, len(got), len(before))
	}
	for id, was := range before {
		switch got[id] {
		case was:
			for _, u := range call {
				if u.ID == id {
					rest = append(rest, u)
				}
			}
		case after[id]:
		default:
			t.Errorf("crash %d: item %s is\n%s\nwant as before the call\n%s\nor after it\n%s", i, id, got[id], was, after[id])
		}
	}
	checkCounts(t, i, q)
	return rest
}

// checkCounts fails unless Active, reading no settled file, agrees with
// List on the items at work and the settled ones' counts, and finds none
// expired: every item here was settled within the retention.
func checkCounts(t *testing.T, i int, q *File) {
	t.Helper()
	all, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	a, err := q.Active()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{StatusDone: 0, StatusFailed: 0, StatusSkipped: 0}
	var work []string
	for _, it := range all {
		if it.Settled() {
			counts[it.Status]++
		} else {
			work = append(work, it.ID)
		}
	}
	var activeIDs []string
	for _, it := range a.Items {
		activeIDs = append(activeIDs, it.ID)
	}
	if !reflect.DeepEqual(activeIDs, work) || !reflect.DeepEqual(a.Settled, counts) || a.Expired {
		t.Errorf("crash %d: active %v with %v settled (expired %t), want %v with %v, none expired", i, activeIDs, a.Settled, a.Expired, work, counts)
	}
}

func encodedItems(t *testing.T, q Store) map[string]string {
	t.Helper()
	all, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, it := range all {
		data, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		out[it.ID] = string(data)
	}
	return out
}

// snapshotsAtEachWrite runs call and returns, for each file of a split
// directory it writes, a copy of dir as it was just after that write: the
// state a crash there leaves. The write hook is told each file once it is
// whole on disk.
func snapshotsAtEachWrite(t *testing.T, dir string, call func()) []string {
	t.Helper()
	var mu sync.Mutex
	var out []string
	restore := statefile.SetWriteHook(func(string, int) {
		mu.Lock()
		defer mu.Unlock()
		to := t.TempDir()
		if err := copyDir(dir, to); err != nil {
			t.Error(err)
		}
		out = append(out, filepath.Join(to, filepath.Base(dir)))
	})
	defer restore()
	call()
	return out
}

// copyDir copies dir into the directory to.
func copyDir(dir, to string) error {
	parent := filepath.Dir(dir)
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(parent, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
}

// stateFiles returns the contents of the queue's two split states under
// dir, by directory and key ("queue/<key>"; their shards hold them).
func stateFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, sub := range []string{"queue", "queue-settled"} {
		_, files, err := statefile.Read(filepath.Join(dir, sub+".json"))
		if err != nil {
			t.Fatal(err)
		}
		for key, data := range files {
			out[sub+"/"+key] = string(data)
		}
	}
	return out
}

// writeStateFiles writes contents as stateFiles returns them into the
// queue's split states under dir.
func writeStateFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	by := map[string]map[string][]byte{}
	for name, data := range files {
		sub, key, _ := strings.Cut(name, "/")
		if by[sub] == nil {
			by[sub] = map[string][]byte{}
		}
		by[sub][key] = []byte(data)
	}
	for sub, contents := range by {
		if _, err := statefile.WriteSome(filepath.Join(dir, sub+".json"), contents, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func show(files map[string]string) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(files)) {
		b.WriteString("--- " + name + "\n" + files[name])
	}
	return b.String()
}

// TestInitFinishesAMoveBackThatStoppedBeforeItsIndex: the one state a
// move back to work can stop in that the write hook cannot show (its
// settled copy removed, its peer's index not rewritten yet: the index
// still lists it under back) answers as after the move, and the next
// heartbeat's Init finishes it, ending with the files of a run that never
// stopped; a second Init writes nothing.
func TestInitFinishesAMoveBackThatStoppedBeforeItsIndex(t *testing.T) {
	for _, tc := range moveCases()[2:4] {
		t.Run(tc.name, func(t *testing.T) {
			want, before, after := uninterrupted(t, tc)
			_, p := newQueue(t)
			dir := filepath.Dir(p)
			files := map[string]string{}
			for name, data := range want {
				if strings.HasPrefix(name, "queue/") {
					data = withBack(t, data, movedBack(t, before, after))
				}
				files[name] = data
			}
			writeStateFiles(t, dir, files)
			q := Open(p)
			q.Now = func() time.Time { return t0 }
			if got := encodedItems(t, q); !reflect.DeepEqual(got, after) {
				t.Errorf("items before Init:\n%v\nwant as after the move\n%v", got, after)
			}
			checkCounts(t, 0, q)
			if err := q.Init(); err != nil {
				t.Fatal(err)
			}
			if got := stateFiles(t, dir); !reflect.DeepEqual(got, want) {
				t.Errorf("after Init the files are\n%s\nwant\n%s", show(got), show(want))
			}
			written := 0
			defer statefile.SetWriteHook(func(string, int) { written++ })()
			if err := Open(p).Init(); err != nil || written != 0 {
				t.Errorf("a second Init wrote %d files, %v", written, err)
			}
		})
	}
}

// movedBack returns the IDs of the items settled before the call and at
// work after it.
func movedBack(t *testing.T, before, after map[string]string) []string {
	t.Helper()
	var ids []string
	for id := range after {
		var was, is Item
		if err := errors.Join(json.Unmarshal([]byte(before[id]), &was), json.Unmarshal([]byte(after[id]), &is)); err != nil {
			t.Fatal(err)
		}
		if was.Settled() && !is.Settled() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// withBack returns the queue file data with its index listing ids under
// back, as a write that stopped before its last step leaves it.
func withBack(t *testing.T, data string, ids []string) string {
	t.Helper()
	f, err := decode([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if f.Settled == nil {
		f.Settled = &index{}
	}
	f.Settled.Back = ids
	out, err := f.encode()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
