package heartbeat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// peerDispute is a dispute file by beta about gamma's seq n.
func peerDispute(n int) string {
	claimed := fmt.Sprintf("%064x", n)
	return strings.Replace(peersDispute, "claimed_hash: sha256:"+zeros, "claimed_hash: sha256:"+claimed, 1)
}

// TestPeersDisputesAreRecordedUnderThePeer: a peer's dispute file is
// recorded in the ledger as the peer's (whatever reporter it names),
// with the disputed agent, file, seq, both hashes and its time; one that
// disputes nothing is passed over.
func TestPeersDisputesAreRecordedUnderThePeer(t *testing.T) {
	p := newFakePeer(t)
	equal := strings.Replace(peersDispute, "served_hash: sha256:"+ones, "served_hash: sha256:"+zeros, 1)
	p.publishRows("/beta/", [][4]string{
		{"disputes/dispute-000000000000.md", peersDispute, "dispute", "published"},
		{"disputes/dispute-000000000001.md", equal, "dispute", "published"},
	})
	dir := newNode(t, [][2]string{{"beta2", p.URL + "/beta/"}}, "")
	beat(t, dir, testNow)
	l := loadLedger(t, dir)
	ds := l.SortedDisputes()
	if len(ds) != 1 {
		t.Fatalf("ledger holds %d disputes, want 1 (the one with equal hashes disputes nothing): %+v", len(ds), ds)
	}
	d := ds[0]
	url := p.URL + "/beta/"
	if d.Reporter != "beta2" || d.ReporterURL != url || d.AgentURL != "https://gamma.example/" || d.Seq != 3 ||
		d.ClaimedHash != manifest.Hash("sha256:"+zeros) || d.ServedHash != manifest.Hash("sha256:"+ones) ||
		d.SourceURL != url+"disputes/dispute-000000000000.md" || d.SourceHash != manifest.HashBytes([]byte(peersDispute)) ||
		d.ObservedAt.Format("2006-01-02") != "2026-03-14" {
		t.Errorf("recorded %+v", d)
	}
}

// TestDisputesKeptOfOnePeerAreBounded: a peer publishing more disputes
// than maxDisputesPerPeer has that many recorded, and the summary says
// how many were passed over.
func TestDisputesKeptOfOnePeerAreBounded(t *testing.T) {
	p := newFakePeer(t)
	var rows [][4]string
	for i := range maxDisputesPerPeer + 5 {
		rows = append(rows, [4]string{fmt.Sprintf("disputes/dispute-%012d.md", i), peerDispute(i + 1), "dispute", "published"})
	}
	p.publishRows("/beta/", rows)
	dir := newNode(t, [][2]string{{"beta", p.URL + "/beta/"}}, "")
	sum := beat(t, dir, testNow)
	if got := len(loadLedger(t, dir).Disputes); got != maxDisputesPerPeer {
		t.Errorf("ledger holds %d disputes of one peer, want %d", got, maxDisputesPerPeer)
	}
	held := 0
	for _, h := range sum.HeldBack {
		if strings.HasPrefix(h.Reason, "disputes not recorded") {
			held += h.Count
		}
	}
	if held != 5 {
		t.Errorf("summary holds back %d disputes, want 5: %+v", held, sum.HeldBack)
	}
}
