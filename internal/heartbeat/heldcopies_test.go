package heartbeat

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/manifest"
)

// manyTraces is n small traces of one peer as publishSeqs takes them,
// seqs 1 to n; each body also names tag.
func manyTraces(tag string, n int) map[manifest.Seq][2]string {
	rows := map[manifest.Seq][2]string{}
	for seq := 1; seq <= n; seq++ {
		rows[manifest.Seq(seq)] = [2]string{fmt.Sprintf("traces/%03d.md", seq), fmt.Sprintf("# Trace %d of %s\n\nWords of trace %d.\n", seq, tag, seq)}
	}
	return rows
}

// openJob opens the heartbeat of the node in dir as Run does, under
// limits (nil: the defaults).
func openJob(t *testing.T, dir string, limits *pubLimits) *job {
	t.Helper()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	n, unlock, err := open(context.Background(), Options{Dir: dir, Config: cfg, Now: func() time.Time { return testNow },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), pubLimits: limits})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unlock)
	return n
}

// TestPollsHoldOnlyTheCopiesTheBoundsMayKeep: a peer listing more traces
// than copies.PerAgent has only its PerAgent newest kept; the polls held
// a copy of every trace fetched until the apply dropped the rest. Now a
// poll lets go of those when it ends, and the apply keeps the same.
func TestPollsHoldOnlyTheCopiesTheBoundsMayKeep(t *testing.T) {
	const over = 10
	p := newFakePeer(t)
	p.publishSeqs("/many/", copies.PerAgent+over, manyTraces("many", copies.PerAgent+over))
	dir := newNode(t, [][2]string{{"many", p.URL + "/many/"}}, "gossip:\n  enabled: false\n")
	n := openJob(t, dir, nil)
	peers, err := n.peers()
	if err != nil {
		t.Fatal(err)
	}
	results := n.pollAll(context.Background(), peers)
	held := 0
	for _, r := range results {
		for _, f := range r.files {
			if f.copy != nil {
				held++
			}
		}
	}
	for _, c := range n.held.held {
		if c != nil {
			held++
		}
	}
	if held != copies.PerAgent {
		t.Fatalf("%d copies held after polling, want the %d the bounds may keep", held, copies.PerAgent)
	}
	if err := n.apply(results); err != nil {
		t.Fatal(err)
	}
	if n.held != nil {
		t.Errorf("the apply still holds the held copies' map")
	}
	if len(n.snap.Copies.ByHash) != copies.PerAgent || len(n.letGo) != over {
		t.Fatalf("%d copies kept and %d let go of, want %d and %d", len(n.snap.Copies.ByHash), len(n.letGo), copies.PerAgent, over)
	}
	for seq := over + 1; seq <= copies.PerAgent+over; seq++ {
		body := manyTraces("many", copies.PerAgent+over)[manifest.Seq(seq)][1]
		if n.snap.Copies.ByHash[manifest.HashBytes([]byte(body))] == nil {
			t.Fatalf("no copy of seq %d, one of the %d newest", seq, copies.PerAgent)
		}
	}
}

// TestHeartbeatFetchesAgainACopyLetGoOfThatIsKeptAfterAll: a poll lets go
// of the copy of its peer's oldest trace, the bounds keeping its
// PerAgent newest; but its newest is the bytes of another agent's trace
// already known, recorded as a copy and never a candidate, so the bounds
// select the oldest after all. It is fetched again, and the copies are
// those a heartbeat holding every copy kept.
func TestHeartbeatFetchesAgainACopyLetGoOfThatIsKeptAfterAll(t *testing.T) {
	rows := manyTraces("late", copies.PerAgent+1)
	known := rows[copies.PerAgent+1][1]
	early := newFakePeer(t)
	early.publishSeqs("/early/", 1, map[manifest.Seq][2]string{1: {"traces/known.md", known}})
	late := newFakePeer(t)
	dir := newNode(t, [][2]string{{"early", early.URL + "/early/"}, {"late", late.URL + "/late/"}}, "gossip:\n  enabled: false\n")
	beat(t, dir, testNow)
	late.publishSeqs("/late/", copies.PerAgent+1, rows)
	sum := beat(t, dir, testNow.Add(time.Hour))
	if len(sum.Copies) != 1 {
		t.Fatalf("%d traces recorded as copies, want the known one", len(sum.Copies))
	}
	c := loadCopies(t, dir)
	if len(c.ByHash) != copies.PerAgent+1 {
		t.Fatalf("%d copies kept, want %d: the known trace and all the late peer's others", len(c.ByHash), copies.PerAgent+1)
	}
	oldest := c.ByHash[manifest.HashBytes([]byte(rows[1][1]))]
	if oldest == nil || oldest.AgentURL != late.URL+"/late/" {
		t.Fatalf("copy of the late peer's oldest trace = %+v, want one of %s", oldest, late.URL+"/late/")
	}
	if hits := late.hitsOf("/late/" + rows[1][0]); hits != 2 {
		t.Errorf("the oldest trace was fetched %d times, want 2: once polled, once again for its copy", hits)
	}
}

// TestAFetchTakesNoCopyTheSelectionIsSureToLetGo: once the selection
// holds as many copies as it keeps, a trace older than all of them gets
// no copy at all (it cost a catch-up the cleaning of 17,000 texts it
// dropped), and its poll's offer records it let go of, as if taken and
// dropped.
func TestAFetchTakesNoCopyTheSelectionIsSureToLetGo(t *testing.T) {
	const url = "https://peer.example/"
	h := &heldCopies{sel: copies.NewSelection(copies.PerAgent, 1), held: map[copyKey]*copies.Copy{}}
	file := func(seq int, day int) fetched {
		body := fmt.Sprintf("# Trace %d\n\nWords.\n", seq)
		f := fetched{entry: manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes([]byte(body)), File: fmt.Sprintf("traces/%d.md", seq),
			Type: "knowledge", Submitted: testNow.AddDate(0, 0, day)}, raw: []byte(body)}
		f.read("peer", url, h.mayKeep)
		return f
	}
	newer := []fetched{file(2, 0)}
	if newer[0].copy == nil {
		t.Fatal("no copy taken while the selection had room")
	}
	h.offer(url, newer)
	older := []fetched{file(1, -1)}
	if older[0].copy != nil || !older[0].copyLetGo {
		t.Fatalf("copy of an older trace taken (%v) with the selection full", older[0].copy != nil)
	}
	h.offer(url, older)
	if c, offered := h.take(url, older[0].entry); c != nil || !offered {
		t.Errorf("the older trace's copy: %v, offered %v; want none, let go of", c, offered)
	}
	if c, _ := h.take(url, newer[0].entry); c == nil {
		t.Errorf("the newer trace's copy is not held")
	}
}
