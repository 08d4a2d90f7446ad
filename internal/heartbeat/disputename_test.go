package heartbeat

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// TestAnotherAgentsMismatchOfAClaimSpendsNoAgentsDispute: the node
// publishes one dispute file per claimed hash and disputed agent
// (publishDisputes): disputes/dispute-<12 hex>.md for the first, and
// dispute-<12 hex>-<12 hex of the agent URL's sha256>.md for another
// agent's mismatch of the same claim. A sock puppet lists, a heartbeat
// before gamma, a row claiming the hash gamma's row claims, and serves
// wrong bytes too: our dispute of the puppet keeps the claim's name, and
// gamma's own mismatch, found a heartbeat later, is published beside it.
//
// Attack: gamma (or a friend) runs a second peer the node polls and lists
// the hashes gamma is about to claim, before gamma. Harm, before: gamma's
// hash mismatch left no dispute in our published files (the puppet's
// held the only name), so no reader of them (SIGNAL's mismatch rule
// under mesh-2026-3 included) ever saw it; the puppet took the blame it
// could afford. The rule (docs/protocol.md §7.4, docs/security.md "bytes
// that do not match the manifest's sha256": "a rejection in the ledger
// and a dispute").
func TestAnotherAgentsMismatchOfAClaimSpendsNoAgentsDispute(t *testing.T) {
	p := newFakePeer(t)
	claimed := manifest.HashBytes([]byte("# What gamma claims\n"))
	serveLying := func(base, agent string) {
		m := manifest.Manifest{Agent: agent, Sequence: 1, Entries: []manifest.Entry{
			{Seq: 1, Hash: claimed, File: "traces/x.md", Type: "knowledge", Status: "pending"},
		}}
		p.serve(base+"traces/x.md", []byte("# Something else, served by "+agent+"\n"))
		p.serve(base+"MANIFEST.md", m.Format())
	}
	serveLying("/puppet/", "puppet")
	p.serve("/gamma/MANIFEST.md", []byte("# MANIFEST\n\nagent: gamma\nsequence: 0\n"))
	dir := newNode(t, [][2]string{{"gamma", p.URL + "/gamma/"}, {"puppet", p.URL + "/puppet/"}}, "")
	beat(t, dir, testNow)
	serveLying("/gamma/", "gamma")
	beat(t, dir, testNow.Add(cursorStep))

	l := loadLedger(t, dir)
	if _, ok := l.Rejected[p.URL+"/gamma/traces/x.md"]; !ok {
		t.Fatal("setup: gamma's mismatch was not rejected")
	}
	entries, err := os.ReadDir(filepath.Join(dir, node.DisputesDir))
	if err != nil {
		t.Fatal(err)
	}
	about := map[string]string{} // agent URL → file name
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, node.DisputesDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		d, err := dispute.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		about[d.AgentURL] = e.Name()
	}
	if _, ok := about[p.URL+"/gamma/"]; !ok {
		t.Errorf("no published dispute names gamma's mismatch; the disputes name %v", about)
	}
	if got, want := about[p.URL+"/puppet/"], dispute.FileName(claimed); got != want {
		t.Errorf("the first dispute of the claim, the puppet's, is named %q, want %q as before", got, want)
	}
	if len(entries) != 2 {
		t.Errorf("%d dispute files for two agents' mismatches of one claim, want 2: %v", len(entries), about)
	}
}

// TestEachClaimOfAnAgentGetsItsDisputeOnce: disputeFile took the
// dispute published under a claim's file name for the same claim when
// it named the same agent_url, byte for byte, whatever hash it claimed.
// A claimed hash is any 64 hex an agent's row gives, so gamma could list
// a second wrong claim sharing the first one's 12 hex digits and no
// dispute of it was ever published (one mismatch cost gamma one dispute,
// however many it served); and a dispute the node wrote when it polled
// gamma at an earlier spelling of its URL was another agent's, so the
// same claim was disputed a second time. Now the same claim is the same
// claimed hash about the same agent (signal.Names).
func TestEachClaimOfAnAgentGetsItsDisputeOnce(t *testing.T) {
	const prefix = "sha256:abcdefabcdef"
	first := manifest.Hash(prefix + strings.Repeat("0", 52))
	second := manifest.Hash(prefix + strings.Repeat("1", 52))
	for _, tc := range []struct {
		name    string
		claims  []manifest.Hash
		earlier bool // our dispute of the first claim is published, naming gamma's URL with its scheme in upper case
		want    map[manifest.Hash]int
	}{
		{"two claims sharing their first 12 hex digits", []manifest.Hash{first, second}, false, map[manifest.Hash]int{first: 1, second: 1}},
		{"a claim disputed under an earlier spelling of the agent's URL", []manifest.Hash{first}, true, map[manifest.Hash]int{first: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newFakePeer(t)
			gamma := p.URL + "/gamma/"
			m := manifest.Manifest{Agent: "gamma", Sequence: manifest.Seq(len(tc.claims))}
			for i, h := range tc.claims {
				file := fmt.Sprintf("traces/x%d.md", i)
				m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(i + 1), Hash: h, File: file, Type: "knowledge", Status: "pending"})
				p.serve("/gamma/"+file, []byte(fmt.Sprintf("# Not what row %d claims\n", i)))
			}
			p.serve("/gamma/MANIFEST.md", m.Format())
			dir := newNode(t, [][2]string{{"gamma", gamma}}, "")
			if tc.earlier {
				d := dispute.Dispute{Reporter: "fern", ReporterURL: "https://fern.example/", Agent: "gamma", AgentURL: "HTTP" + strings.TrimPrefix(gamma, "http"),
					FileURL: gamma + "traces/x0.md", Seq: 1, ClaimedHash: first, ServedHash: manifest.HashBytes([]byte("# Not what row 0 claims\n")),
					ObservedAt: testNow.Add(-time.Hour)}
				write(t, dir, node.DisputesDir+"/"+dispute.FileName(first), string(d.Format()))
			}
			beat(t, dir, testNow)
			got := map[manifest.Hash]int{}
			entries, err := os.ReadDir(filepath.Join(dir, node.DisputesDir))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				data, err := os.ReadFile(filepath.Join(dir, node.DisputesDir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				d, err := dispute.Parse(data)
				if err != nil {
					t.Fatal(err)
				}
				got[d.ClaimedHash]++
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("disputes published by claimed hash %v, want %v", got, tc.want)
			}
		})
	}
}
