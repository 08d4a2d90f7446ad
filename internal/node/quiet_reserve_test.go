package node_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestAQuietNodeStepsInAsReserveAtTheHeartbeatItIsDue: under mesh-2026-6
// a founder node of twelve records, at 11:00 on the day a peer publishes
// it, a trace whose jury passes it over and whose reserve names it; nobody
// votes. Heartbeats that find nothing new stay quiet (they read no
// history, queue nothing) until 24 hours after the node first saw the
// trace (not at the end of the trace's day, when its jury may not have
// read it); the first heartbeat after that, with no news either, reads the history,
// queues the trace as reserve and validates it; the next is quiet again.
// Under mesh-2026-5 the same heartbeats never queue it.
func TestAQuietNodeStepsInAsReserveAtTheHeartbeatItIsDue(t *testing.T) {
	if _, err := os.Stat("/usr/bin/git"); err != nil {
		t.Skip("no git")
	}
	day := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	for _, rules := range []string{"mesh-2026-6", "mesh-2026-5"} {
		t.Run(rules, func(t *testing.T) {
			dir, _ := reserveNode(t, rules)
			steps := []struct {
				at      time.Duration
				quiet   bool
				reserve int
			}{
				{11 * time.Hour, false, 0},                // the trace is news: recorded, not ours to judge
				{18 * time.Hour, true, 0},                 // nothing new, nothing due
				{24*time.Hour + 30*time.Minute, true, 0},  // the trace's day is over: not due yet
				{34*time.Hour + 59*time.Minute, true, 0},  // the last heartbeat before it is due
				{35*time.Hour + 30*time.Minute, false, 1}, // due: the reserve steps in
				{36 * time.Hour, true, 0},                 // validated: quiet again
			}
			for _, st := range steps {
				at := day.Add(st.at)
				got, reads := beatCounting(t, dir, at)
				if got.err != nil {
					t.Fatal(got.err)
				}
				quiet, reserve := reads[node.LedgerFile] == 0, st.reserve
				if rules != "mesh-2026-6" {
					if st.at > 24*time.Hour {
						continue // under mesh-2026-5 nothing comes due: a quiet beat may read or not
					}
					reserve = 0
				}
				if quiet != st.quiet || got.sum.Reserve != reserve || got.sum.Queued != reserve || got.sum.ValidationsPublished != reserve {
					t.Fatalf("%s: quiet %v, reserve %d, queued %d, published %d; want quiet %v and %d stepped in, queued and validated",
						at.Format(time.RFC3339), quiet, got.sum.Reserve, got.sum.Queued, got.sum.ValidationsPublished, st.quiet, reserve)
				}
				gitCommit(t, dir)
			}
			if rules != "mesh-2026-6" {
				for _, at := range []time.Duration{36*time.Hour + 30*time.Minute, 42 * time.Hour} {
					if got := mustBeat(t, dir, day.Add(at)); got.Queued != 0 || got.Reserve != 0 {
						t.Fatalf("under %s: queued %d, reserve %d at %v", rules, got.Queued, got.Reserve, at)
					}
				}
			}
		})
	}
}

// reserveNode is a node in git, one of twelve founders under rules,
// polling ada (at the URL it returns) at every heartbeat; ada publishes,
// dated 2026-03-14T10:00, one trace whose rendezvous order over the
// founders puts the node in ranks 6 to 10: its reserve, not its jury.
func reserveNode(t *testing.T, rules string) (dir, ada string) {
	t.Helper()
	p := &quietPeer{files: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(srv.Close)
	p.base = srv.URL + "/ada/"
	names := []string{"tester"}
	founders := "rules: " + rules + "\ntester | http://127.0.0.1:1/tester/\n"
	for i := 1; i <= 11; i++ {
		names = append(names, fmt.Sprintf("f%d", i))
		founders += fmt.Sprintf("f%d | https://f%d.example/\n", i, i)
	}
	p.publish("traces/retry.md", reserveBody(names))
	dir = newNode(t, p.base)
	writeText(t, dir, node.FoundersFile, founders)
	writeText(t, dir, node.ConfigFile, "agent: tester\nurl: http://127.0.0.1:1/tester/\nallow_private_addresses: true\npolling:\n  quiet_after: 0\n")
	if err := os.MkdirAll(filepath.Join(dir, "mesh-state"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "init", "-q")
	gitCommit(t, dir)
	return dir, p.base
}

// reserveBody is a variant of peerTrace whose rendezvous order over names
// (sha256 of its hash, a newline and the name, highest first) puts
// "tester" at rank 6 to 10.
func reserveBody(names []string) string {
	for i := 0; ; i++ {
		body := strings.Replace(peerTrace, "held", fmt.Sprintf("held (take %d)", i), 1)
		h := manifest.HashBytes([]byte(body))
		order := slices.Clone(names)
		w := func(n string) string {
			s := sha256.Sum256([]byte(string(h) + "\n" + n))
			return hex.EncodeToString(s[:])
		}
		sort.Slice(order, func(a, b int) bool { return w(order[a]) > w(order[b]) })
		if r := slices.Index(order, "tester"); r >= 5 && r < 10 {
			return body
		}
	}
}

// TestAReserveTraceTheQueueHeldBackIsQueuedOnceItHasRoom: the node's
// queue holds the most it takes of ada's traces (maxQueuedPerPeer, 2,000),
// all claimed by a worker elsewhere, when a trace of its reserve comes
// due. The queue holds it back, and the summary does not count it as
// stepped in; with no news, a heartbeat ReserveRetry later reads the
// history and tries it again rather than pass it by, and the first such
// after a person skips one of the worker's items queues it and validates it; the
// next is quiet.
func TestAReserveTraceTheQueueHeldBackIsQueuedOnceItHasRoom(t *testing.T) {
	if _, err := os.Stat("/usr/bin/git"); err != nil {
		t.Skip("no git")
	}
	day := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	dir, ada := reserveNode(t, "mesh-2026-6")
	mustBeat(t, dir, day.Add(11*time.Hour)) // records the trace: not ours to judge yet
	gitCommit(t, dir)
	q := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile)))
	fillQueue(t, q, ada, day.Add(12*time.Hour))
	skip := func() {
		items, err := q.List()
		if err != nil {
			t.Fatal(err)
		}
		res, err := q.Update(queue.Update{Kind: queue.Decide, ID: items[0].ID, Status: queue.StatusSkipped, Reason: "a person skipped it", At: day.Add(36*time.Hour + 10*time.Minute)})
		if err == nil {
			err = errors.Join(res...)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		at       time.Duration
		then     func()
		quiet    bool
		reserve  int // stepped in, queued and validated
		heldBack bool
	}{
		{18 * time.Hour, nil, true, 0, false},
		{35*time.Hour + 30*time.Minute, nil, false, 0, true}, // due, and the queue has no room
		{36 * time.Hour, skip, true, 0, false},               // waits ReserveRetry: room may need a person
		{38 * time.Hour, nil, true, 0, false},
		{38*time.Hour + 30*time.Minute, nil, false, 1, false}, // tried again, with room
		{39 * time.Hour, nil, true, 0, false},
	}
	for _, st := range steps {
		at := day.Add(st.at)
		got, reads := beatCounting(t, dir, at)
		if got.err != nil {
			t.Fatal(got.err)
		}
		held := slices.ContainsFunc(got.sum.HeldBack, func(h report.HeldBack) bool { return strings.Contains(h.Reason, "traces not queued for validation") })
		if quiet := reads[node.LedgerFile] == 0; quiet != st.quiet || held != st.heldBack ||
			got.sum.Reserve != st.reserve || got.sum.Queued != st.reserve || got.sum.ValidationsPublished != st.reserve {
			t.Fatalf("%s: quiet %v, held back %v, reserve %d, queued %d, published %d; want quiet %v, held back %v, and %d stepped in, queued and validated",
				at.Format(time.RFC3339), quiet, held, got.sum.Reserve, got.sum.Queued, got.sum.ValidationsPublished, st.quiet, st.heldBack, st.reserve)
		}
		gitCommit(t, dir)
		if st.then != nil {
			st.then()
		}
	}
}

// TestAReserveTraceWhoseIDTheQueueHoldsIsNotWaitedFor: the queue refuses
// an item whose ID (the first 12 hex digits of its hash) another item
// holds, for up to a week after that one settles. A reserve trace so
// refused was counted as waiting for room, and every heartbeat loaded the
// history to try it again for the rest of its window: a peer publishing
// two traces whose hashes share 48 bits (a birthday search) kept a node off
// its quiet path for days.
func TestAReserveTraceWhoseIDTheQueueHoldsIsNotWaitedFor(t *testing.T) {
	if _, err := os.Stat("/usr/bin/git"); err != nil {
		t.Skip("no git")
	}
	day := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	dir, ada := reserveNode(t, "mesh-2026-6")
	names := []string{"tester"}
	for i := 1; i <= 11; i++ {
		names = append(names, fmt.Sprintf("f%d", i))
	}
	h := manifest.HashBytes([]byte(reserveBody(names))) // reserveNode's trace
	mustBeat(t, dir, day.Add(11*time.Hour))
	gitCommit(t, dir)
	twin := manifest.Hash(string(h)[:len("sha256:")+12] + strings.Repeat("0", 52))
	at := day.Add(12 * time.Hour)
	q := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile)))
	q.Now = func() time.Time { return at }
	if _, err := q.Enqueue(queue.Item{ID: validation.ID(twin), Hash: twin, From: "ada", FromURL: ada, TraceURL: ada + "traces/twin.md",
		Submitted: at, QueuedAt: at, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	res, err := q.Update(queue.Update{Kind: queue.Decide, ID: validation.ID(twin), Status: queue.StatusSkipped, Reason: "a person skipped it", At: at})
	if err == nil {
		err = errors.Join(res...)
	}
	if err != nil {
		t.Fatal(err)
	}
	gitCommit(t, dir)
	for i, st := range []time.Duration{18 * time.Hour, 35*time.Hour + 30*time.Minute, 36 * time.Hour, 48 * time.Hour, 96 * time.Hour} {
		got, reads := beatCounting(t, dir, day.Add(st))
		if got.err != nil {
			t.Fatal(got.err)
		}
		// The first heartbeat after the trace came due loads the history
		// (the record said it was due); none after it.
		if full := reads[node.LedgerFile] > 0; full != (i == 1) {
			t.Errorf("+%s: read the history %v, want %v", st, full, i == 1)
		}
		gitCommit(t, dir)
	}
}

// fillQueue fills q with the most items of one peer, from, that the
// heartbeat's queue takes, all claimed at now by a worker for a month.
func fillQueue(t *testing.T, q *queue.File, from string, now time.Time) {
	t.Helper()
	items := make([]queue.Item, 2000)
	for i := range items {
		h := manifest.HashBytes(fmt.Appendf(nil, "other trace %d", i))
		items[i] = queue.Item{ID: validation.ID(h), Hash: h, From: "ada", FromURL: from, TraceURL: fmt.Sprintf("%straces/other-%d.md", from, i),
			Submitted: now, QueuedAt: now, UpdatedAt: now}
	}
	if _, err := q.Enqueue(items...); err != nil {
		t.Fatal(err)
	}
	claimed, err := q.Claim(queue.Claim{Owner: "worker", Now: now, Lease: 30 * 24 * time.Hour})
	if err != nil || len(claimed) != len(items) {
		t.Fatalf("claimed %d of %d: %v", len(claimed), len(items), err)
	}
}
