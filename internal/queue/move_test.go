package queue

import (
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

// movedURL is where the tests move jolt37's items (item's FromURL).
const movedURL = "https://jolt37.example/moved/"

// renameSetup brings a queue to a peer's items at every stage: a result
// waiting, one in progress, one queued, settled ones, and another peer's
// item at the URL they move to.
func renameSetup(t *testing.T, q *File) {
	t.Helper()
	there := item(6)
	there.FromURL, there.TraceURL = movedURL, movedURL+"t6.md"
	if _, err := q.Enqueue(item(1), item(2), item(3), item(4), item(5), there); err != nil {
		t.Fatal(err)
	}
	got, err := q.Claim(Claim{Owner: "w", Now: t0, Max: 4})
	if err != nil || len(got) != 4 {
		t.Fatalf("claim: %d items, %v", len(got), err)
	}
	waiting := finishOf(got[0], StatusDone)
	waiting.Result = &Result{Scores: validation.Scores{5, 1, 5, 1, 5, 1}, Scorer: "command", ScoredAt: t0}
	mustApply(t, q, waiting, finishOf(got[1], StatusFailed), finishOf(got[3], StatusSkipped))
}

// TestARenameStoppedAtAnyWriteLosesNothing: a rename that stops after any
// file it writes leaves every item of the peer at its old URL or at its
// new one, as it was, never in neither and never twice, with counts that
// agree with the items; the next run's Init, then the rename again (the
// heartbeat moves again what its cursors still show at the old URL), ends
// with the very files of a rename that never stopped.
func TestARenameStoppedAtAnyWriteLosesNothing(t *testing.T) {
	q, p := newQueue(t)
	renameSetup(t, q)
	before := encodedItems(t, q)
	if n, err := q.Rename(item(1).FromURL, movedURL); n != 5 || err != nil {
		t.Fatalf("rename: moved %d, %v; want 5", n, err)
	}
	after := encodedItems(t, q)
	want := stateFiles(t, filepath.Dir(p))

	q, p = newQueue(t)
	renameSetup(t, q)
	crashes := snapshotsAtEachWrite(t, filepath.Dir(p), func() {
		if _, err := q.Rename(item(1).FromURL, movedURL); err != nil {
			t.Fatal(err)
		}
	})
	if len(crashes) < 3 {
		t.Fatalf("the rename wrote %d files, want the new URL's two before the old URL's go", len(crashes))
	}
	for i, dir := range crashes {
		p := filepath.Join(dir, filepath.Base(p))
		q := Open(p)
		q.Now = func() time.Time { return t0 }
		got := encodedItems(t, q)
		if !reflect.DeepEqual(got, before) && !reflect.DeepEqual(got, after) {
			t.Errorf("crash %d: items\n%v\nwant all as before the rename\n%v\nor all as after it\n%v", i, got, before, after)
		}
		checkCounts(t, i, q)
		if err := q.Init(); err != nil {
			t.Fatalf("crash %d: init: %v", i, err)
		}
		if _, err := q.Rename(item(1).FromURL, movedURL); err != nil {
			t.Fatalf("crash %d: rename again: %v", i, err)
		}
		if got := stateFiles(t, filepath.Dir(p)); !reflect.DeepEqual(got, want) {
			t.Errorf("crash %d: after the next run the files are\n%s\nwant those of a rename that never stopped\n%s", i, show(got), show(want))
		}
	}
}

// TestAnUnfinishedMoveReadsAsDoneAndInitFinishesIt: a queue whose new
// URL's file records a move while the old URL's files still hold the
// items (the states a removal leaves, which the write hook does not
// show: both old files there, or the old settled file removed already)
// answers as after the move, and Init finishes it with the files of a
// rename that never stopped; a second Init writes nothing.
func TestAnUnfinishedMoveReadsAsDoneAndInitFinishesIt(t *testing.T) {
	q, p := newQueue(t)
	renameSetup(t, q)
	old := stateFiles(t, filepath.Dir(p))
	if _, err := q.Rename(item(1).FromURL, movedURL); err != nil {
		t.Fatal(err)
	}
	after := encodedItems(t, q)
	want := stateFiles(t, filepath.Dir(p))
	for _, settledLeft := range []bool{true, false} {
		t.Run(map[bool]string{true: "the old files all there", false: "the old settled file removed"}[settledLeft], func(t *testing.T) {
			_, p := newQueue(t)
			dir := filepath.Dir(p)
			files := map[string]string{}
			for name, data := range old {
				if settledLeft || !strings.HasPrefix(name, "queue-settled/") {
					files[name] = data
				}
			}
			for name, data := range want {
				if strings.HasPrefix(name, "queue/") && strings.Contains(data, movedURL) {
					data = withMove(t, data, Move{From: item(1).FromURL, To: movedURL})
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

// withMove returns the queue file data with its index recording m, as
// the first step of a move leaves the new URL's file.
func withMove(t *testing.T, data string, m Move) string {
	t.Helper()
	f, err := decode([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if f.Settled == nil {
		f.Settled = &index{}
	}
	f.Settled.Moves = append(f.Settled.Moves, m)
	out, err := f.encode()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestAMoveRecordWithoutAURLIsReportedAndKept: a queue file whose index
// records a move from or to no URL (a hand edit) is a corrupt file: the
// call fails naming it, and the file is left as it was.
func TestAMoveRecordWithoutAURLIsReportedAndKept(t *testing.T) {
	q, p := newQueue(t)
	if _, err := q.Enqueue(item(1)); err != nil {
		t.Fatal(err)
	}
	files := stateFiles(t, filepath.Dir(p))
	for name, data := range files {
		files[name] = withMove(t, data, Move{From: "", To: item(1).FromURL})
	}
	writeStateFiles(t, filepath.Dir(p), files)
	_, err := Open(p).List()
	var ce *statefile.CorruptError
	if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), "peer URL is empty") {
		t.Errorf("list of a queue with a move from no URL: %v, want a corrupt file saying why", err)
	}
	if got := stateFiles(t, filepath.Dir(p)); !reflect.DeepEqual(got, files) {
		t.Errorf("the corrupt file was changed:\n%s", show(got))
	}
}

// TestAnItemInBothPeersFilesIsTheNewURLsCopy: while a move is unfinished
// a write that changed an item at its new URL (here a claim) may stop
// before the old URL's copy leaves; the item is the new URL's copy,
// whichever file is read first.
func TestAnItemInBothPeersFilesIsTheNewURLsCopy(t *testing.T) {
	q, p := newQueue(t)
	renameSetup(t, q)
	old := stateFiles(t, filepath.Dir(p))
	if _, err := q.Rename(item(1).FromURL, movedURL); err != nil {
		t.Fatal(err)
	}
	if held, err := q.Claim(Claim{Owner: "w2", Now: t0}); err != nil || len(held) != 2 {
		t.Fatalf("claim after the rename: %v, %v; want the queued item and the new URL's own", held, err)
	}
	want := encodedItems(t, q)
	files := stateFiles(t, filepath.Dir(p))
	for name, data := range files {
		if strings.HasPrefix(name, "queue/") && strings.Contains(data, movedURL) {
			files[name] = withMove(t, data, Move{From: item(1).FromURL, To: movedURL})
		}
	}
	for name, data := range old {
		if _, ok := files[name]; !ok {
			files[name] = data
		}
	}
	_, p2 := newQueue(t)
	writeStateFiles(t, filepath.Dir(p2), files)
	q2 := Open(p2)
	q2.Now = func() time.Time { return t0 }
	if got := encodedItems(t, q2); !reflect.DeepEqual(got, want) {
		t.Errorf("items:\n%v\nwant the new URL's copies\n%v", got, want)
	}
}

// FuzzQueueFile: a peer's file of mesh-state/queue/, its index with the
// moves it records included, decodes to what it encodes back to, byte
// for byte at the second round, and a move record is accepted only with
// both URLs.
func FuzzQueueFile(f *testing.F) {
	f.Add([]byte(`{"items": {}, "settled": {"done": ["a"], "moves": [{"from": "https://a.example/", "to": "https://b.example/"}]}}`))
	f.Add([]byte(`{"items": {"000000000001": {"hash": "sha256:01", "from_url": "https://b.example/", "status": "queued", "queued_at": "2026-03-01T12:00:00Z", "version": 1}}, "settled": {"moves": [{"from": "", "to": "x"}]}}`))
	f.Add([]byte(`{"items": {}, "settled": {"back": ["b"], "moves": null}}`))
	if data, err := os.ReadFile(filepath.Join("testdata", "queue.golden.json")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := decode(data)
		if err != nil {
			return
		}
		moves, err := movesOf(in)
		for _, m := range moves {
			if m.From == "" || m.To == "" {
				t.Fatalf("move %+v accepted", m)
			}
		}
		if err != nil && in.Settled == nil {
			t.Fatalf("a file without an index refused: %v", err)
		}
		for _, it := range in.Items {
			it.normalize()
		}
		enc, err := in.encode()
		if err != nil {
			t.Fatalf("encode a decoded file: %v", err)
		}
		back, err := decode(enc)
		if err != nil {
			t.Fatalf("a queue file written does not decode: %v\n%s", err, enc)
		}
		again, err := back.encode()
		if err != nil || string(again) != string(enc) {
			t.Fatalf("a queue file's bytes are not stable (%v):\n%s\n%s", err, enc, again)
		}
	})
}

// TestItemsMovedTwiceEndAtTheLastURL: an agent moved from A to B, then
// from B to C, each move unfinished (its record in its new URL's file,
// C's read before B's), reads with A's items at C, and Init leaves them
// there alone, no record left.
func TestItemsMovedTwiceEndAtTheLastURL(t *testing.T) {
	const b, c = "https://zz.example/", "https://aa.example/"
	q, p := newQueue(t)
	if _, err := q.Enqueue(item(1), item(2)); err != nil {
		t.Fatal(err)
	}
	files := stateFiles(t, filepath.Dir(p))
	for _, m := range []Move{{From: item(1).FromURL, To: b}, {From: b, To: c}} {
		files["queue/"+statefile.PeerFileName(m.To)] = withMove(t, `{"items": {}}`, m)
	}
	writeStateFiles(t, filepath.Dir(p), files)
	q = Open(p)
	q.Now = func() time.Time { return t0 }
	for _, when := range []string{"before Init", "after Init"} {
		all, err := q.List()
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 2 || all[0].FromURL != c || all[1].FromURL != c || all[0].TraceURL != c+"traces/1.md" {
			t.Errorf("%s: items %+v, want both at %s, their trace URLs under it", when, all, c)
		}
		if err := q.Init(); err != nil {
			t.Fatal(err)
		}
	}
	got := stateFiles(t, filepath.Dir(p))
	if len(got) != 1 || strings.Contains(show(got), `"moves"`) {
		t.Errorf("files after Init:\n%s\nwant C's alone, without a move record", show(got))
	}
}

// TestARenameThatMovesNothingWritesNothing: a heartbeat that changes
// nothing commits nothing, so a rename of a URL that lists no item, or of
// a URL to itself, writes no file.
func TestARenameThatMovesNothingWritesNothing(t *testing.T) {
	q, _ := newQueue(t)
	renameSetup(t, q)
	written := 0
	defer statefile.SetWriteHook(func(string, int) { written++ })()
	for _, m := range []Move{{From: "https://nobody.example/", To: movedURL}, {From: item(1).FromURL, To: item(1).FromURL}} {
		if n, err := q.Rename(m.From, m.To); n != 0 || err != nil || written != 0 {
			t.Errorf("rename %s to %s: moved %d, %v, wrote %d files; want nothing", m.From, m.To, n, err, written)
		}
	}
}
