package heartbeat

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/relay"
	"github.com/meshnode/meshnode/internal/validation"
)

// workersResult is what a worker stores for the tests below: scores and
// notes the heuristic scorer would not give, so a validation that holds
// them was published from the result, not scored again.
var workersResult = queue.Result{Scores: validation.Scores{5, 1, 5, 1, 5, 1}, Notes: "Judged by the worker.", Scorer: "command", ScoredAt: testNow}

// TestAMovedAgentsStoredResultIsPublishedAtItsNewURLWithoutScoringAgain:
// a worker stored its judgement of alice's trace, waiting for the node's
// standing, when a person moves alice to a new URL in AGENTS.md. Her
// queue item moves with her cursor and ledger records (Store.Rename), as
// it is: the result is published, naming her file at the new URL, and the
// item keeps its ID and is marked published. Before, the item still named
// the old URL, which the ledger no longer records as listing the trace:
// it was dropped with the worker's result and the trace queued again from
// the ledger, then scored a second time by the node's own scorer.
func TestAMovedAgentsStoredResultIsPublishedAtItsNewURLWithoutScoringAgain(t *testing.T) {
	m := newMovingAgent(t)
	dir := newNode(t, [][2]string{{"gamma", m.url("/gamma/")}, {"alice", m.url("/old/")}}, "")
	beat(t, dir, testNow) // queues alice's trace; no standing, so it waits
	h := manifest.HashBytes([]byte("# Alice's work\n\n## Work\n\nMeasured once.\n"))
	stored := storeResult(t, dir, h, m.url("/old/"))

	write(t, dir, node.AgentsFile, string(agentsFile([2]string{"gamma", m.url("/gamma/")}, [2]string{"alice", m.url("/new/")})))
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	beat(t, dir, testNow.Add(cursorStep))
	beat(t, dir, testNow.Add(2*cursorStep))

	assertPublishedFromResult(t, dir, stored, m.url("/new/"), m.url("/new/traces/001-work.md"))
}

// TestARespelledAgentsStoredResultIsPublishedAtItsURLWithoutScoringAgain:
// the node kept ada's cursor, records and queue item under an earlier
// spelling of her URL (an escaped letter), and a worker stored its
// judgement of her trace. AGENTS.md gives the canonical URL: the item
// moves with the cursor and the records (adoptRespelled), and the result
// is published, naming her file at that URL. Before, the item stayed
// under the old spelling, counted as listed through a special case, and
// its result was marked published without a validation: its trace URL
// was not the one the ledger's record holds.
func TestARespelledAgentsStoredResultIsPublishedAtItsURLWithoutScoringAgain(t *testing.T) {
	p := newFakePeer(t)
	body := "# Ada's trace\n\n## Work\n\nMeasured 10 ms.\n"
	p.publish("/ada/", []string{"traces/1.md"}, map[string]string{"traces/1.md": body})
	canon, old := p.URL+"/ada/", p.URL+"/%61da/"
	dir := newNode(t, [][2]string{{"ada", canon}}, "gossip:\n  enabled: false\n")
	beat(t, dir, testNow) // queues ada's trace; no standing, so it waits
	h := manifest.HashBytes([]byte(body))
	respell(t, dir, canon, old, h)
	stored := storeResult(t, dir, h, old)

	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	beat(t, dir, testNow.Add(cursorStep))

	assertPublishedFromResult(t, dir, stored, canon, canon+"traces/1.md")
}

// respellRecords puts the node's cursor and ledger records of the agent
// at canon under the spelling old, as a node older than URLs' canonical
// form kept them.
func respellRecords(t *testing.T, dir, canon, old string) {
	t.Helper()
	st := loadState(t, dir)
	if !st.Rename(canon, old) {
		t.Fatal("setup: no cursor to respell")
	}
	if _, err := st.Save(filepath.Join(dir, filepath.FromSlash(node.CursorsFile)), time.Time{}); err != nil {
		t.Fatal(err)
	}
	l := loadLedger(t, dir)
	l.Rename(canon, old)
	if _, err := l.Save(filepath.Join(dir, filepath.FromSlash(node.LedgerFile))); err != nil {
		t.Fatal(err)
	}
}

// respell puts the node's cursor, ledger records and queue item of the
// agent at canon under the spelling old, as a node older than URLs'
// canonical form kept them.
func respell(t *testing.T, dir, canon, old string, h manifest.Hash) {
	t.Helper()
	respellRecords(t, dir, canon, old)
	q := openQueue(t, dir)
	it := queuedItem(t, dir, h)
	if it == nil {
		t.Fatal("setup: the trace is not queued")
	}
	if n, err := q.Drop(it.ID); n != 1 || err != nil {
		t.Fatalf("setup: dropped %d items (%v)", n, err)
	}
	it.MoveTo(canon, old)
	if n, err := q.Enqueue(*it); n != 1 || err != nil {
		t.Fatalf("setup: queued %d items (%v)", n, err)
	}
}

func openQueue(t *testing.T, dir string) *queue.File {
	t.Helper()
	q := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile)))
	q.Now = func() time.Time { return testNow }
	return q
}

// storeResult has a worker claim the item of the trace h, which the queue
// lists at the peer URL from, and finish it as done with workersResult;
// it returns the item as the worker left it.
func storeResult(t *testing.T, dir string, h manifest.Hash, from string) queue.Item {
	t.Helper()
	q := openQueue(t, dir)
	got, err := q.Claim(queue.Claim{Owner: "gpu1", Now: testNow, Max: 1, Filter: func(it queue.Item) bool { return it.Hash == h }})
	if err != nil || len(got) != 1 || got[0].FromURL != from {
		t.Fatalf("setup: claimed %+v (%v), want the item of %s at %s", got, err, h, from)
	}
	res := workersResult
	r, err := q.Update(queue.Update{Kind: queue.Finish, ID: got[0].ID, Owner: "gpu1", Version: got[0].Version,
		Status: queue.StatusDone, Reason: "scored", At: testNow, Result: &res})
	if err != nil || r[0] != nil {
		t.Fatalf("setup: finish %v, %v", r, err)
	}
	return *queuedItem(t, dir, h)
}

// assertPublishedFromResult checks that our validation of stored's trace
// holds the worker's result and names traceURL, and that the item, at
// fromURL now, is the worker's, marked published.
func assertPublishedFromResult(t *testing.T, dir string, stored queue.Item, fromURL, traceURL string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, node.ValidationsDir, validation.FileName(stored.Hash)))
	if err != nil {
		t.Fatalf("the trace was never validated: %v", err)
	}
	v, err := validation.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if v.TraceURL != traceURL || v.Scores != workersResult.Scores || v.Notes != workersResult.Notes {
		t.Errorf("our validation names %s, scores %v, notes %q; want %s with the worker's %v, %q (scored again?)",
			v.TraceURL, v.Scores, v.Notes, traceURL, workersResult.Scores, workersResult.Notes)
	}
	it := queuedItem(t, dir, stored.Hash)
	if it == nil || it.ID != stored.ID || it.FromURL != fromURL || it.Result == nil || it.Result.PublishedAt.IsZero() ||
		it.Result.Scorer != workersResult.Scorer || it.Version != stored.Version+1 {
		t.Errorf("the item is %s, want the worker's %s at %s, its result published", describe(it), stored.ID, fromURL)
	}
}

func describe(it *queue.Item) string {
	if it == nil {
		return "gone"
	}
	return fmt.Sprintf("%s at %s (%s, version %d, result %+v)", it.ID, it.FromURL, it.Status, it.Version, it.Result)
}

// TestAMovedAgentsLogPinFollowsIt: big publishes a signed log, pinned on
// first contact at its old URL; a person moves it to a new URL, where it
// serves the same log. Its pin moves with its cursor (moveAgent): read at
// the new URL, the log goes on under the key pinned and from the
// checkpoint accepted, no entry fetched again, and no pin is left at the
// old URL. Before, the new URL had no pin: its cursor had looked at
// IDENTITY.md within the day, so it was read from MANIFEST.md alone (a
// downgrade a pinned log never allows), until a later look pinned again,
// on "first contact", whatever key the new URL published, and read the
// whole log again; the old URL's pin, an alarm included, stayed behind
// unseen.
func TestAMovedAgentsLogPinFollowsIt(t *testing.T) {
	p, paths := logPeerAt(t, 3, "/old/", "/new/")
	old, moved := p.URL+"/old/", p.URL+"/new/"
	dir := newNode(t, [][2]string{{"big", old}}, "gossip:\n  enabled: false\n")
	if sum := beat(t, dir, testNow); sum.Verified != 3 {
		t.Fatalf("setup: %d traces verified, want 3", sum.Verified)
	}
	was := loadPins(t, dir).Get(old)
	if was == nil || was.Key == "" || was.Size() != 3 {
		t.Fatalf("setup: pin %+v", was)
	}

	write(t, dir, node.AgentsFile, string(agentsFile([2]string{"big", moved})))
	if sum := beat(t, dir, testNow.Add(cursorStep)); sum.Verified != 0 {
		t.Errorf("%d traces verified again at the new URL", sum.Verified)
	}
	pins := loadPins(t, dir)
	if got := pins.Get(moved); got == nil || got.Key != was.Key || got.Checkpoint != was.Checkpoint || !reflect.DeepEqual(got.Accepted, was.Accepted) {
		t.Errorf("pin at the new URL %+v, want the one pinned at the old URL %+v", got, was)
	}
	if got := pins.Get(old); got != nil {
		t.Errorf("a pin is left at the old URL: %+v", got)
	}
	for _, path := range paths {
		if strings.HasPrefix(path, "tile/") && p.hitsOf("/new/"+node.LogDir+"/"+path) > 0 {
			t.Errorf("%s fetched again at the new URL", path)
		}
	}
}

func loadPins(t *testing.T, dir string) *logpin.Pins {
	t.Helper()
	pins, err := logpin.Load(filepath.Join(dir, node.LogPinsFile))
	if err != nil {
		t.Fatal(err)
	}
	return pins
}

// TestARelaysListingOfAMovedAgentsOldURLVouchesForNothing: a relay lists
// the agent's checkpoint at the URL it polls, the agent's old one. When a
// person moves the agent, what the node holds of that relay's listings
// does not move to the new URL (docs/decisions.md, "Names"): a relay's
// word that nothing changed at the old URL says nothing of the new one,
// so the node polls the new URL on its own schedule, never skipping a
// poll on the relay's word; and the old URL, no longer polled, keeps no
// listing either, old or new (docs/decisions.md, "Relays").
func TestARelaysListingOfAMovedAgentsOldURLVouchesForNothing(t *testing.T) {
	m := newRelayMesh(t)
	m.publish(t, testNow.Add(-2*time.Hour))
	m.relayRun(t)
	m.beat(t, testNow)
	// The relay's word lets the agent wait at every heartbeat but one of
	// its bound's, at a phase its URL (here the test server's port) gives
	// (relay.View.Due): of two heartbeats in a row, at least one waits.
	vouched := 0
	for _, at := range []time.Time{testNow.Add(cursorStep), testNow.Add(2 * cursorStep)} {
		sum, _ := m.beat(t, at)
		vouched += sum.RelaySkipped
	}
	if vouched == 0 {
		t.Fatal("setup: the relay does not vouch for the agent at its old URL")
	}
	m.srv.dirs["moved"] = m.agentDir
	moved := strings.TrimSuffix(m.agentURL, "agent/") + "moved/"
	write(t, m.nodeDir, node.AgentsFile, string(agentsFile([2]string{"agent", moved})))
	skipped, asked := 0, 0
	for at := testNow.Add(3 * cursorStep); at.Before(testNow.Add(12 * time.Hour)); at = at.Add(cursorStep) {
		if at.Equal(testNow.Add(6 * time.Hour)) {
			m.publish(t, at.Add(-time.Minute))
			m.relayRun(t) // lists the news at the old URL
		}
		sum, _ := m.beat(t, at)
		skipped += sum.RelaySkipped
		asked += m.srv.take("moved")
	}
	if skipped != 0 || asked == 0 {
		t.Errorf("after the move: %d polls skipped on the relay's word, %d requests to the new URL", skipped, asked)
	}
	if got := loadPins(t, m.nodeDir).Get(moved); got == nil || got.Size() != 2 {
		t.Errorf("the agent's news at the new URL was not read: pin %+v", got)
	}
	store, err := relay.LoadStore(filepath.Join(m.nodeDir, node.RelaysFile))
	if err != nil {
		t.Fatal(err)
	}
	held := store.All()
	if len(held) != 1 {
		t.Fatalf("relays held: %+v", held)
	}
	if len(held[0].Agents) != 0 || len(held[0].Pending) != 0 {
		t.Errorf("the relay's listings: %+v, pending %+v; want none, at the old URL or the new", held[0].Agents, held[0].Pending)
	}
}
