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
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/signal"
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
	files := readDisputes(t, dir)
	about := map[string]string{} // agent URL → file name
	for name, d := range files {
		about[d.AgentURL] = name
	}
	if _, ok := about[p.URL+"/gamma/"]; !ok {
		t.Errorf("no published dispute names gamma's mismatch; the disputes name %v", about)
	}
	if got, want := about[p.URL+"/puppet/"], dispute.FileName(claimed); got != want {
		t.Errorf("the first dispute of the claim, the puppet's, is named %q, want %q as before", got, want)
	}
	if len(files) != 2 {
		t.Errorf("%d dispute files for two agents' mismatches of one claim, want 2: %v", len(files), about)
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
			for _, d := range readDisputes(t, dir) {
				got[d.ClaimedHash]++
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("disputes published by claimed hash %v, want %v", got, tc.want)
			}
		})
	}
}

// claimSharing is the claimed hash i of claims all sharing their first 12
// hex digits.
func claimSharing(i int) manifest.Hash {
	return manifest.Hash(fmt.Sprintf("sha256:abcdefabcdef%052x", i))
}

// lyingAgent is an agent of the fake peer whose rows claim hashes its
// files do not hash to.
type lyingAgent struct {
	p     *fakePeer
	name  string
	rows  []manifest.Hash
	trunk string // the agent's path on the peer, "/<name>/"
}

// claim lists hashes as the agent's next rows, each served wrong.
func (a *lyingAgent) claim(hashes ...manifest.Hash) {
	a.rows = append(a.rows, hashes...)
	m := manifest.Manifest{Agent: a.name, Sequence: manifest.Seq(len(a.rows))}
	for i, h := range a.rows {
		file := fmt.Sprintf("traces/x%d.md", i)
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(i + 1), Hash: h, File: file, Type: "knowledge", Status: "pending"})
		a.p.serve(a.trunk+file, []byte(fmt.Sprintf("# Not what %s's row %d claims\n", a.name, i)))
	}
	a.p.serve(a.trunk+"MANIFEST.md", m.Format())
}

// claimKey is a dispute's claim: whom it is about (its URL normalized, so
// that two spellings of it are one agent) and the hash claimed.
type claimKey struct {
	agentURL string
	hash     manifest.Hash
}

func claimOf(t *testing.T, agentURL string, hash manifest.Hash) claimKey {
	t.Helper()
	u, err := roster.NormalizeURL(agentURL)
	if err != nil {
		t.Fatal(err)
	}
	return claimKey{u, hash}
}

// readDisputes reads the node's disputes/ by file name, failing on a
// file that does not parse.
func readDisputes(t *testing.T, dir string) map[string]*dispute.Dispute {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, node.DisputesDir))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dispute.Dispute{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, node.DisputesDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if out[e.Name()], err = dispute.Parse(data); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// publishedClaims reads the node's disputes/ by file name, each file's
// claim.
func publishedClaims(t *testing.T, dir string) map[string]claimKey {
	t.Helper()
	out := map[string]claimKey{}
	for name, d := range readDisputes(t, dir) {
		out[name] = claimOf(t, d.AgentURL, d.ClaimedHash)
	}
	return out
}

// checkEachClaimOnce fails unless the node's disputes/ holds one file for
// each of want, and no other.
func checkEachClaimOnce(t *testing.T, dir string, want []claimKey) {
	t.Helper()
	files := publishedClaims(t, dir)
	got := map[claimKey]int{}
	for _, c := range files {
		got[c]++
	}
	wantCount := map[claimKey]int{}
	for _, c := range want {
		wantCount[claimOf(t, c.agentURL, c.hash)] = 1
	}
	if !maps.Equal(got, wantCount) {
		t.Errorf("dispute files by claim %v, want one for each of %v", got, want)
	}
}

// TestEveryClaimSharingTwelveHexDigitsIsPublishedOnce: a dispute went
// under FileName of its claimed hash, else FileNameAbout its agent; a
// third claim sharing the first 12 hex digits (an agent's third wrong
// row with them, or its second beside another agent's first) found both
// taken and was never published, though the ledger rejected it. Every
// claim now gets the first free name of dispute.FileNameAt: here seven
// claims of two agents, five of one hash prefix by gamma over two
// heartbeats, one hash claimed by both. A second node finding them in the
// same order names them alike. A heartbeat with nothing new writes no
// file, our MANIFEST.md lists every dispute file, and both our
// own reading of disputes/ (SIGNAL's input) and a peer's, which goes by
// our MANIFEST.md, read them all.
func TestEveryClaimSharingTwelveHexDigitsIsPublishedOnce(t *testing.T) {
	p := newFakePeer(t)
	gamma := &lyingAgent{p: p, name: "gamma", trunk: "/gamma/"}
	delta := &lyingAgent{p: p, name: "delta", trunk: "/delta/"}
	gammaURL, deltaURL := p.URL+gamma.trunk, p.URL+delta.trunk
	gamma.claim(claimSharing(0), claimSharing(1), claimSharing(2))
	delta.claim(claimSharing(0), claimSharing(3))
	peers := [][2]string{{"gamma", gammaURL}, {"delta", deltaURL}}
	dir := newNode(t, peers, "gossip:\n  enabled: false\n")
	twin := newNode(t, peers, "gossip:\n  enabled: false\n") // a second node finding the same disputes
	want := []claimKey{{gammaURL, claimSharing(0)}, {gammaURL, claimSharing(1)}, {gammaURL, claimSharing(2)}, {deltaURL, claimSharing(0)}, {deltaURL, claimSharing(3)}}

	now := testNow
	beat(t, dir, now)
	beat(t, twin, now)
	checkEachClaimOnce(t, dir, want)
	gamma.claim(claimSharing(4), claimSharing(5))
	want = append(want, claimKey{gammaURL, claimSharing(4)}, claimKey{gammaURL, claimSharing(5)})
	now = now.Add(cursorStep)
	beat(t, dir, now)
	beat(t, twin, now)
	checkEachClaimOnce(t, dir, want)
	files := publishedClaims(t, dir)
	if twins := publishedClaims(t, twin); !maps.Equal(twins, files) {
		t.Errorf("two nodes finding the same disputes named them\n%v\nand\n%v", files, twins)
	}
	now = now.Add(cursorStep)
	if sum := beat(t, dir, now); sum.DisputesPublished != 0 {
		t.Errorf("a heartbeat with nothing new published %d disputes", sum.DisputesPublished)
	}
	if again := publishedClaims(t, dir); !maps.Equal(again, files) {
		t.Errorf("a heartbeat with nothing new changed disputes/ from %v to %v", files, again)
	}

	listed := map[string]bool{}
	for _, e := range ownRows(t, dir) {
		if node.KindOf(e) == node.KindDispute {
			listed[e.File] = true
		}
	}
	for name := range files {
		if !listed[node.DisputesDir+"/"+name] {
			t.Errorf("our MANIFEST.md does not list %s/%s", node.DisputesDir, name)
		}
	}
	if len(listed) != len(files) {
		t.Errorf("our MANIFEST.md lists %d disputes, disputes/ holds %d", len(listed), len(files))
	}

	in, err := signal.Load(dir, "tester", "http://127.0.0.1:1/tester/")
	if err != nil {
		t.Fatal(err)
	}
	ours := map[claimKey]int{}
	for _, d := range in.Disputes {
		if d.ReporterURL == "http://127.0.0.1:1/tester/" {
			ours[claimOf(t, d.AgentURL, d.ClaimedHash)]++
		}
	}
	if len(ours) != len(want) {
		t.Errorf("SIGNAL's input holds %d of our disputes (%v), want %d", len(ours), ours, len(want))
	}

	srv := serveDir(t, dir)
	reader := newNode(t, [][2]string{{"author", srv.URL + "/a/"}}, "gossip:\n  enabled: false\n")
	beat(t, reader, now)
	read := map[claimKey]int{}
	for _, d := range loadLedger(t, reader).Disputes {
		if d.ReporterURL == srv.URL+"/a/" {
			read[claimOf(t, d.AgentURL, d.ClaimedHash)]++
		}
	}
	if len(read) != len(want) {
		t.Errorf("a peer reading our MANIFEST.md recorded %d of our disputes (%v), want %d", len(read), read, len(want))
	}
}

// TestAClaimDisputedUnderAnotherSpellingOfTheAgentsURLIsNotDisputedAgain:
// our disputes of three claims sharing 12 hex digits, written when the
// node polled gamma at another spelling of its URL, take FileName,
// FileNameAbout that spelling and the third name. Polling gamma at its
// current spelling, the node took the second claim's dispute for none
// (FileNameAbout of the current spelling was free) and disputed it a
// second time, and the third claim's with it. A claim is now looked for
// in every dispute file of ours, about the agent in any spelling
// (signal.Names): only the fourth, new claim is published.
func TestAClaimDisputedUnderAnotherSpellingOfTheAgentsURLIsNotDisputedAgain(t *testing.T) {
	p := newFakePeer(t)
	gamma := &lyingAgent{p: p, name: "gamma", trunk: "/gamma/"}
	gammaURL := p.URL + gamma.trunk
	earlier := "HTTP" + strings.TrimPrefix(gammaURL, "http")
	gamma.claim(claimSharing(0), claimSharing(1), claimSharing(2), claimSharing(3))
	dir := newNode(t, [][2]string{{"gamma", gammaURL}}, "gossip:\n  enabled: false\n")
	for i := range 3 {
		d := dispute.Dispute{Reporter: "tester", ReporterURL: "http://127.0.0.1:1/tester/", Agent: "gamma", AgentURL: earlier,
			FileURL: fmt.Sprintf("%straces/x%d.md", gammaURL, i), Seq: manifest.Seq(i + 1), ClaimedHash: claimSharing(i),
			ServedHash: manifest.HashBytes([]byte(fmt.Sprintf("# Not what gamma's row %d claims\n", i))), ObservedAt: testNow.Add(-time.Hour)}
		write(t, dir, node.DisputesDir+"/"+dispute.FileNameAt(d.ClaimedHash, earlier, i), string(d.Format()))
	}
	beat(t, dir, testNow)
	checkEachClaimOnce(t, dir, []claimKey{{gammaURL, claimSharing(0)}, {gammaURL, claimSharing(1)}, {gammaURL, claimSharing(2)}, {gammaURL, claimSharing(3)}})
}
