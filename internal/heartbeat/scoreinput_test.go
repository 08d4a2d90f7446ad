package heartbeat

import (
	"context"
	"testing"

	"github.com/meshnode/meshnode/internal/signal"
)

// TestScoringLetsGoOfTheBodiesItDoesNotScore: the bytes of the traces
// queued this heartbeat are kept for scoring, but only what the
// publishing budget lets start is scored; the rest were held until the
// heartbeat ended, through the writes of the queue, our MANIFEST.md and
// the cursors. Scoring now lets go of them once the items it started
// have theirs.
func TestScoringLetsGoOfTheBodiesItDoesNotScore(t *testing.T) {
	dir := newNode(t, floodPeers(t, 2, 6), "gossip:\n  enabled: false\n")
	write(t, dir, signal.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	l := testPubLimits
	n := openJob(t, dir, &l)
	peers, err := n.peers()
	if err != nil {
		t.Fatal(err)
	}
	if err := n.apply(n.pollAll(context.Background(), peers)); err != nil {
		t.Fatal(err)
	}
	if len(n.fetched) != 12 {
		t.Fatalf("%d bodies kept for scoring, want the 12 queued", len(n.fetched))
	}
	if err := n.saveLedger(); err != nil {
		t.Fatal(err)
	}
	if err := n.validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n.sum.ValidationsPublished != 2*l.perPeer {
		t.Fatalf("%d validations published, want %d", n.sum.ValidationsPublished, 2*l.perPeer)
	}
	if now, _ := n.budget.inUse(); len(n.fetched) != 0 || now != 0 {
		t.Errorf("after scoring, %d bodies kept and %d bytes held, want none: the 4 traces not scored wait in the queue", len(n.fetched), now)
	}
}
