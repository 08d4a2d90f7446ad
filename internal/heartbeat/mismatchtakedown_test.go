package heartbeat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// TestAStrangersMismatchTakesDownNoOtherAgentsTrace: a stranger (no
// standing) lists a row whose sha256 is gamma's trace hash and serves
// other bytes for it. A dispute counts against a trace only when it is
// about the trace's author (takeDownDisputed):
//
//   - "our rejection": the node's own rejection of the stranger's file is
//     about the stranger, not gamma;
//   - "a founder's dispute": an honest peer with standing that read the
//     stranger's row publishes a dispute naming the stranger
//     (agent_url) and gamma's hash (claimed_hash); it is about the
//     stranger as SIGNAL's mismatch rule reads it, so no node that gives
//     that peer standing takes gamma's trace down for it.
//
// Attack: one manifest row; the victim's hash is public in its
// MANIFEST.md; no standing, no grinding. Harm, before: gamma's trace was
// marked disputed and lost its copy, reading page and feed entries on our
// site for as long as the stranger kept the row. The rule
// (docs/decisions.md, "Taking a peer's text down"): ours counts when "we
// were served other bytes for it" by its author; "a dispute by an agent
// without standing ... takes nothing down: otherwise any stranger could
// stop us republishing any trace with one well-formed file".
func TestAStrangersMismatchTakesDownNoOtherAgentsTrace(t *testing.T) {
	for _, tc := range []string{"our rejection", "a founder's dispute"} {
		t.Run(tc, func(t *testing.T) {
			p := newFakePeer(t)
			p.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/x.md", plainTrace}})
			h := manifest.HashBytes([]byte(plainTrace))
			mallory := p.URL + "/mallory/"
			peers := [][2]string{{"gamma", p.URL + "/gamma/"}}
			if tc == "our rejection" {
				m := manifest.Manifest{Agent: "mallory", Sequence: 1, Entries: []manifest.Entry{
					{Seq: 1, Hash: h, File: "traces/claim.md", Type: "knowledge", Status: "pending"},
				}}
				p.serve("/mallory/traces/claim.md", []byte("# Other\n\nOther bytes.\n"))
				p.serve("/mallory/MANIFEST.md", m.Format())
				peers = append(peers, [2]string{"mallory", mallory})
			} else {
				// Beta's honest dispute of the stranger's row, as disputeOf writes one.
				d := strings.NewReplacer("agent: gamma", "agent: mallory", "https://gamma.example/", mallory,
					"sha256:"+zeros, string(h)).Replace(peersDispute)
				p.publishRows("/beta/", [][4]string{{"disputes/dispute-" + h.Hex(12) + ".md", d, "dispute", "published"}})
				peers = append(peers, [2]string{"beta", p.URL + "/beta/"})
			}
			dir := newNode(t, peers, "")
			if tc == "a founder's dispute" {
				write(t, dir, node.FoundersFile, fmt.Sprintf("beta | %s/beta/\n", p.URL))
			}
			beat(t, dir, testNow)

			l := loadLedger(t, dir)
			if len(l.Rejected)+len(l.Disputes) != 1 {
				t.Fatalf("setup: %d rejections and %d disputes, want one of them", len(l.Rejected), len(l.Disputes))
			}
			tr := l.Traces[h]
			if tr == nil || tr.AgentURL != p.URL+"/gamma/" {
				t.Fatalf("setup: the victim's trace is %+v, want recorded as gamma's", tr)
			}
			if tr.TakenDown != "" {
				t.Errorf("gamma's trace is taken down (%q) by a mismatch of mallory's row naming its hash", tr.TakenDown)
			}
			if loadCopies(t, dir).ByHash[h] == nil {
				t.Error("gamma's copy was deleted by a mismatch of mallory's row naming its hash")
			}
		})
	}
}
