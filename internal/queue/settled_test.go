package queue

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// peerItem is item n published by the peer named name.
func peerItem(n int, name string) Item {
	it := item(n)
	it.From, it.FromURL = name, "https://"+name+".example/"
	return it
}

// shardReads is what settledReads counts when the settled items of the
// named peers are read once each: their shards' (statefile), once each.
func shardReads(p string, names ...string) map[string]int {
	out := map[string]int{}
	for _, n := range names {
		shard := filepath.Base(statefile.PeerPath(SettledPath(p), "https://"+n+".example/"))
		out[strings.SplitN(shard, "_", 2)[0]] = 1
	}
	return out
}

// settledReads counts the reads of each settled file, by peer, until the
// test ends.
func settledReads(t *testing.T) func() map[string]int {
	var mu sync.Mutex
	reads := map[string]int{}
	t.Cleanup(statefile.SetReadHook(func(p string) {
		if strings.Contains(p, "queue-settled") {
			mu.Lock()
			reads[strings.SplitN(filepath.Base(p), "_", 2)[0]]++
			mu.Unlock()
		}
	}))
	return func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range reads {
			out[k] = v
		}
		clear(reads)
		return out
	}
}

// TestSettledFilesAreReadOnlyWhenNeeded: a peer's settled items are read
// only by the calls that need them. Listing what is at work, claiming
// and enqueueing a new trace read none; settling an item reads its
// peer's; enqueueing a trace another peer's settled item holds reads
// that peer's; List reads them all. Every item was in its peer's file,
// read at every call: 39 MB of settled items at 10,000 agents.
func TestSettledFilesAreReadOnlyWhenNeeded(t *testing.T) {
	q, p := newQueue(t)
	var all []Item
	for i, name := range []string{"ada", "bob", "cyd"} {
		all = append(all, peerItem(2*i+1, name), peerItem(2*i+2, name))
	}
	if _, err := q.Enqueue(all...); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 3} {
		if err := Set(q, item(n).ID, StatusDone, "pass", t0); err != nil {
			t.Fatal(err)
		}
	}
	q = Open(p) // a new process: nothing cached
	q.Now = func() time.Time { return t0 }
	reads := settledReads(t)
	a, err := q.Active()
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Items) != 3 || a.Settled[StatusDone] != 3 || a.Expired {
		t.Fatalf("active: %d items, settled %v, expired %v; want 3 at work, 3 done", len(a.Items), a.Settled, a.Expired)
	}
	got, err := q.Claim(Claim{Owner: "w", Now: t0, Max: 1, Filter: func(it Item) bool { return it.From == "cyd" }})
	if err != nil || len(got) != 1 {
		t.Fatalf("claim: %v, %v", got, err)
	}
	if _, err := q.Enqueue(peerItem(7, "dan")); err != nil {
		t.Fatal(err)
	}
	if r := reads(); len(r) != 0 {
		t.Fatalf("listing, claiming and enqueueing a new trace read settled files: %v", r)
	}
	if err := finish(q, got[0].ID, "w", got[0].Version, StatusFailed, "boom", t0); err != nil {
		t.Fatal(err)
	}
	if err := Set(q, item(4).ID, StatusSkipped, "no", t0); err != nil {
		t.Fatal(err)
	}
	if r := reads(); !reflect.DeepEqual(r, shardReads(p, "bob")) {
		t.Fatalf("settling items of bob and cyd (who had no settled file) read %v, want bob's once", r)
	}
	relisted := peerItem(1, "dan") // ada's trace, listed by dan
	if added, err := q.Enqueue(relisted); err != nil || added != 0 {
		t.Fatalf("enqueue a settled trace again: added %d, %v", added, err)
	}
	if r := reads(); !reflect.DeepEqual(r, shardReads(p, "ada")) {
		t.Fatalf("enqueueing ada's settled trace read %v, want ada's once", r)
	}
	items, err := Open(p).List() // a new process again: List reads every file
	if err != nil || len(items) != 7 {
		t.Fatalf("list: %d items, %v", len(items), err)
	}
	if r := reads(); !reflect.DeepEqual(r, shardReads(p, "ada", "bob", "cyd")) {
		t.Fatalf("list read %v, want every settled file once", r)
	}
	for name, data := range readDir(t, p) {
		if strings.Contains(data, `"status": "done"`) || strings.Contains(data, `"status": "failed"`) {
			t.Errorf("%s keeps a settled item:\n%s", name, data)
		}
	}
}

func readDir(t *testing.T, p string) map[string]string {
	t.Helper()
	_, files, err := statefile.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, data := range files {
		out[name] = string(data)
	}
	return out
}

// TestOldQueueFilesMigrateAndACrashLosesNothing: a peer's file an older
// node wrote, settled items in it, loads as it was and the next write
// moves them to the peer's settled file. A write that stopped after it
// wrote a settled file and before its peer's file (the item is in both)
// loses nothing and counts nothing twice: the peer's file wins.
func TestOldQueueFilesMigrateAndACrashLosesNothing(t *testing.T) {
	ada := "https://ada.example/"
	name := statefile.PeerFileName(ada)
	old := func(status3 string) string {
		return `{"items": {
  "000000000001": {"hash": "sha256:01", "from_url": "` + ada + `", "status": "queued", "version": 1},
  "000000000002": {"hash": "sha256:02", "from_url": "` + ada + `", "status": "done", "updated_at": "2026-03-01T11:00:00Z", "version": 3},
  "000000000003": {"hash": "sha256:03", "from_url": "` + ada + `", "status": "` + status3 + `", "updated_at": "2026-03-01T11:00:00Z", "owner": "w", "version": 2}}}`
	}
	for _, tc := range []struct {
		name, peerFile, settledFile string
		wantStatus3                 string
	}{
		{"an older node's file", old("failed"), "", StatusFailed},
		{"a migration that stopped half way", old("failed"),
			`{"items": {"000000000002": {"hash": "sha256:02", "from_url": "` + ada + `", "status": "done", "updated_at": "2026-03-01T11:00:00Z", "version": 3}}}`,
			StatusFailed},
		{"a write that stopped as an item settled", old("in_progress"),
			`{"items": {"000000000003": {"hash": "sha256:03", "from_url": "` + ada + `", "status": "failed", "updated_at": "2026-03-01T12:00:00Z", "version": 3}}}`,
			StatusInProgress},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, p := newQueue(t)
			writeFile(t, filepath.Join(statefile.Dir(p), name), tc.peerFile)
			if tc.settledFile != "" {
				writeFile(t, filepath.Join(statefile.Dir(SettledPath(p)), name), tc.settledFile)
			}
			before, err := q.List()
			if err != nil {
				t.Fatal(err)
			}
			if got := statuses(before); got != "[queued done "+tc.wantStatus3+"]" {
				t.Fatalf("loaded %s", got)
			}
			if err := q.Init(); err != nil {
				t.Fatal(err)
			}
			after, err := q.List()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(before, after) {
				t.Fatalf("items changed by the migration:\n%+v\n%+v", before, after)
			}
			peer := readDir(t, p)[name]
			if strings.Contains(peer, `"done"`+",") || strings.Contains(peer, `"status": "done"`) || strings.Contains(peer, `"status": "failed"`) {
				t.Errorf("the peer's file keeps settled items after the write:\n%s", peer)
			}
			if !strings.Contains(readDir(t, SettledPath(p))[name], "000000000002") {
				t.Errorf("the settled file lacks the done item:\n%s", readDir(t, SettledPath(p))[name])
			}
			a, err := Open(p).Active()
			if err != nil {
				t.Fatal(err)
			}
			settled := len(after) - len(a.Items)
			if n := a.Settled[StatusDone] + a.Settled[StatusFailed] + a.Settled[StatusSkipped]; n != settled {
				t.Errorf("%d settled items counted, want %d", n, settled)
			}
		})
	}
}

func statuses(items []Item) string {
	sort.Slice(items, func(i, j int) bool { return items[i].ID < items[j].ID })
	var out []string
	for _, it := range items {
		out = append(out, it.Status)
	}
	return fmt.Sprint(out)
}

func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptSettledFileIsReportedWhenReadAndKept: a settled file that
// does not decode is found by the first call that reads it (List, a
// write that settles an item of its peer), which fails with its position
// and leaves it as it is; calls that do not read it go on.
func TestCorruptSettledFileIsReportedWhenReadAndKept(t *testing.T) {
	q, p := newQueue(t)
	if _, err := q.Enqueue(item(1), item(2)); err != nil {
		t.Fatal(err)
	}
	if err := Set(q, item(1).ID, StatusDone, "pass", t0); err != nil {
		t.Fatal(err)
	}
	key := statefile.PeerFileName(item(1).FromURL)
	if _, err := statefile.WriteSome(SettledPath(p), map[string][]byte{key: []byte("{\"items\": {")}, nil); err != nil {
		t.Fatal(err)
	}
	bad := statefile.FilePath(SettledPath(p), key) // its shard, "#", its key
	q = Open(p)
	q.Now = func() time.Time { return t0 }
	if a, err := q.Active(); err != nil || len(a.Items) != 1 || a.Settled[StatusDone] != 1 {
		t.Fatalf("active beside a torn settled file: %+v, %v", a, err)
	}
	var ce *statefile.CorruptError
	if _, err := q.List(); !errors.As(err, &ce) || ce.Path != bad || ce.Line != 1 {
		t.Errorf("list: %v, want a *statefile.CorruptError at %s:1", err, bad)
	}
	if err := Set(q, item(2).ID, StatusSkipped, "no", t0); !errors.As(err, &ce) {
		t.Errorf("settling an item of its peer: %v, want a *statefile.CorruptError", err)
	}
	if got, _ := statefile.ReadOne(SettledPath(p), key); string(got) != "{\"items\": {" {
		t.Errorf("the torn settled file was rewritten: %q", got)
	}
	if a, _ := q.Active(); len(a.Items) != 1 || a.Items[0].Status != StatusQueued {
		t.Errorf("the refused write changed the queue: %+v", a.Items)
	}
}
