package signal

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// disputed is the hash agent's MANIFEST.md claims for its seq, in a
// dispute: a real sha256, as disputes must carry.
func disputed(agent string, seq int) manifest.Hash {
	return manifest.HashBytes(fmt.Appendf(nil, "%s claims %d", agent, seq))
}

// disp is a dispute by reporter of agent's file at seq.
func disp(reporter, agent string, seq int) ledger.Dispute {
	return ledger.Dispute{Reporter: reporter, ReporterURL: "https://" + reporter + ".example/", Agent: agent, AgentURL: "https://" + agent + ".example/",
		FileURL: fmt.Sprintf("https://%s.example/traces/%03d.md", agent, seq), Seq: manifest.Seq(seq),
		ClaimedHash: disputed(agent, seq), ServedHash: manifest.HashBytes([]byte("rewritten")), ObservedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
}

// disputesOf is a dispute by each reporter of each of agent's seqs.
func disputesOf(agent string, seqs []int, reporters ...string) []ledger.Dispute {
	var out []ledger.Dispute
	for _, r := range reporters {
		for _, s := range seqs {
			out = append(out, disp(r, agent, s))
		}
	}
	return out
}

// mismatchMesh is four founders and mal, a founder whose fail is the only
// vote beside ann's pass on bob's trace: with mal's vote it is contested,
// without it validated.
func mismatchMesh(rules string, ds ...ledger.Dispute) Input {
	return Input{
		Traces:      []*ledger.Trace{tr("bob", 1, "knowledge", "rock"), tr("mal", 60, "knowledge", "pebble")},
		Validations: []*ledger.Validation{val("ann", hash("bob", 1), "pass"), val("mal", hash("bob", 1), "fail")},
		Founders:    founders("ann", "bob", "cy", "mal"),
		Disputes:    ds,
		Rules:       rules,
	}
}

func TestRepeatedMismatchesDisputedByTwoCostStanding(t *testing.T) {
	refuted := mismatchMesh(RulesMesh2026v3, disputesOf("mal", []int{11, 12, 13}, "ann", "cy")...)
	refuted.Traces = append(refuted.Traces, &ledger.Trace{Agent: "mal", AgentURL: "https://mal.example/", Seq: 13, Hash: disputed("mal", 13), Verified: true})
	strangers := mismatchMesh(RulesMesh2026v3, disputesOf("mal", []int{11, 12, 13}, "ann", "zed")...)
	strangers.Traces = append(strangers.Traces, tr("zed", 1, "knowledge", "rock"))
	elsewhere := mismatchMesh(RulesMesh2026v3, disputesOf("mal", []int{11, 12, 13}, "ann", "cy")...)
	for i := range elsewhere.Disputes {
		elsewhere.Disputes[i].AgentURL = "https://mal.elsewhere.example/mesh/" // where its reporter says it lives
	}
	twoMals := mismatchMesh(RulesMesh2026v3, elsewhere.Disputes...)
	twoMals.Traces = append(twoMals.Traces, &ledger.Trace{Agent: "Mal", AgentURL: "https://mal2.example/", Seq: 1, Hash: hash("mal2", 1)})
	for _, c := range []struct {
		name string
		in   Input
		lost bool
		n    int // mal's mismatches
	}{
		{"three files disputed by two founders", mismatchMesh(RulesMesh2026v3, disputesOf("mal", []int{11, 12, 13}, "ann", "cy")...), true, 3},
		{"the same under mesh-2026-2 cost nothing", mismatchMesh(RulesMesh2026v2, disputesOf("mal", []int{11, 12, 13}, "ann", "cy")...), false, 0},
		{"one disputer, however many files", mismatchMesh(RulesMesh2026v3, disputesOf("mal", []int{11, 12, 13, 14, 15, 16, 17, 18}, "ann")...), false, 0},
		{"two files are not repeated enough", mismatchMesh(RulesMesh2026v3, disputesOf("mal", []int{11, 12}, "ann", "cy")...), false, 2},
		{"a second disputer without standing counts for nothing", strangers, false, 0},
		{"a file verified since with the claimed hash refutes its disputes", refuted, false, 2},
		{"disputes naming the agent at another URL, by its name", elsewhere, true, 3},
		{"by a name two agents go by", twoMals, false, 0},
		{"mismatches older than the window of 50 seqs", mismatchMesh(RulesMesh2026v3, disputesOf("mal", []int{1, 2, 10}, "ann", "cy")...), false, 0},
		{"the agent's own disputes of itself", mismatchMesh(RulesMesh2026v3, disputesOf("mal", []int{11, 12, 13}, "mal", "ann")...), false, 0},
		{"one file disputed twice by the same two is one mismatch",
			mismatchMesh(RulesMesh2026v3, append(disputesOf("mal", []int{11}, "ann", "cy", "ann", "cy"), disputesOf("mal", []int{12}, "ann", "cy")...)...), false, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Compute(c.in)
			mal, bob := agentByName(r, "mal"), statusOf(r, hash("bob", 1))
			if mal.StandingLost != c.lost || mal.Standing == c.lost || mal.Mismatches != c.n {
				t.Fatalf("mal: standing %v, lost %v, mismatches %d; want lost %v, %d mismatches", mal.Standing, mal.StandingLost, mal.Mismatches, c.lost, c.n)
			}
			// Without standing mal's fail no longer counts: bob's trace
			// is validated on ann's pass alone.
			want := manifest.StatusContested
			if c.lost {
				want = manifest.StatusValidated
			}
			if bob != want {
				t.Errorf("bob's trace %s, want %s", bob, want)
			}
			if c.lost && (mal.Tier != TierProvisional || !mal.Founder || mal.Signal != FounderPoints) {
				t.Errorf("mal: tier %s, founder %v, SIGNAL %v; want Provisional, still a founder, SIGNAL kept", mal.Tier, mal.Founder, mal.Signal)
			}
			p := ProgressOf(r, "https://mal.example/")
			if c.lost && (p.HasStanding() || !strings.Contains(p.Reason(), "lost to hash mismatches: 3 of your files") || !strings.Contains(p.Next(), "byte for byte")) {
				t.Errorf("progress of mal: %q; next %q", p.Reason(), p.Next())
			}
		})
	}
}

// TestAgentsAdmittedOnABarredAgentsVotesKeepStanding: standing once
// given is kept within the closure, as when SIGNAL later drops: bob was
// admitted on mal's and ann's passes before mal lost standing to
// mismatches that ann and bob dispute, and keeps it, though without mal's
// passes its five capability rocks are uncorroborated (1 each).
func TestAgentsAdmittedOnABarredAgentsVotesKeepStanding(t *testing.T) {
	var traces []*ledger.Trace
	var vals []*ledger.Validation
	for i := 1; i <= 5; i++ {
		traces = append(traces, tr("bob", i, "capability", "rock"))
		vals = append(vals, val("ann", hash("bob", i), "pass"), val("mal", hash("bob", i), "pass"))
	}
	traces = append(traces, tr("mal", 20, "knowledge", "pebble"))
	in := Input{Traces: traces, Validations: vals, Founders: founders("ann", "mal"), Rules: RulesMesh2026v3,
		Disputes: disputesOf("mal", []int{11, 12, 13}, "ann", "bob")}
	r := Compute(in)
	bob, mal := agentByName(r, "bob"), agentByName(r, "mal")
	if !bob.Standing || bob.StandingRound != 1 || bob.Signal != 5 || bob.Tier != TierEstablished {
		t.Errorf("bob: standing %v round %d SIGNAL %v %s; want admitted in round 1, kept at 5, Established", bob.Standing, bob.StandingRound, bob.Signal, bob.Tier)
	}
	if mal.Standing || !mal.StandingLost || mal.Mismatches != 3 {
		t.Errorf("mal: standing %v, lost %v, mismatches %d; want lost to 3", mal.Standing, mal.StandingLost, mal.Mismatches)
	}
	if r.Rounds != 3 {
		t.Errorf("rounds %d, want 3: admit bob, bar mal, nothing more", r.Rounds)
	}
}

// TestDisputesOfAnEmptyMeshComputeNothing: disputes naming agents the
// mesh does not know are passed over, even in a mesh that knows nobody.
func TestDisputesOfAnEmptyMeshComputeNothing(t *testing.T) {
	for _, in := range []Input{
		{Rules: RulesMesh2026v3, Disputes: disputesOf("mal", []int{1, 2, 3}, "ann", "cy")},
		{Rules: RulesMesh2026v3, Disputes: []ledger.Dispute{{}}, Founders: founders("ann")},
	} {
		r := Compute(in)
		for _, a := range r.Agents {
			if a.StandingLost || a.Mismatches > 0 {
				t.Errorf("%+v", a)
			}
		}
	}
}
