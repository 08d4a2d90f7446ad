package signal

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// reserveMesh is twelve founders and ann's trace on March 10, judged by
// the votes of the founders at the given ranks of its rendezvous order.
func reserveMesh(rules string, votes map[int]string) (Input, []string) {
	names := []string{"f01", "f02", "f03", "f04", "f05", "f06", "f07", "f08", "f09", "f10", "f11", "f12"}
	t := dated(tr("ann", 1, "knowledge", "pebble"), 10)
	order := byWeight(t.Hash, names)
	in := Input{Rules: rules, Founders: founders(names...), Traces: []*ledger.Trace{t}}
	for rank := 0; rank < len(order); rank++ {
		if r, ok := votes[rank]; ok {
			in.Validations = append(in.Validations, at(val(order[rank], t.Hash, r), 10))
		}
	}
	return in, order
}

// TestUnderMesh2026v6TheReserveIsTheNextKRanksAndItsVotesCount: three of
// the jury are silent, two pass; ranks 6–8 (the reserve) pass and ranks
// 11–12 fail. Under mesh-2026-6 the reserve's passes count and earn and
// the trace is validated by five; beyond rank 10 nothing counts. Under
// mesh-2026-5 the same files give two votes and five unassigned.
func TestUnderMesh2026v6TheReserveIsTheNextKRanksAndItsVotesCount(t *testing.T) {
	votes := map[int]string{0: "pass", 3: "pass", 5: "pass", 6: "pass", 7: "pass", 10: "fail", 11: "fail"}
	in, order := reserveMesh(RulesMesh2026v6, votes)
	r := Compute(in)
	got := r.Traces[0]
	if !slices.Equal(got.Jury, order[:JurySize]) || !slices.Equal(got.Reserve, order[JurySize:JurySize+ReserveSize]) {
		t.Fatalf("jury %v reserve %v, want %v and %v", got.Jury, got.Reserve, order[:JurySize], order[JurySize:JurySize+ReserveSize])
	}
	if got.Status != manifest.StatusValidated || got.Passing != 5 || got.Seen != 5 || got.Unassigned != 2 {
		t.Fatalf("under mesh-2026-6: %+v, want validated 5 of 5 with 2 unassigned", got)
	}
	for _, rank := range []int{5, 6, 7} {
		if a := agentByName(r, order[rank]); a.ValidationsAuthored != 1 || a.Signal != FounderPoints+ValidationPoints {
			t.Fatalf("reserve %s: %+v, want its agreeing pass counted and earning 1", order[rank], a)
		}
	}
	as, _ := NewAssignments(in)
	if !slices.Equal(as.Reserve(in.Traces[0]), got.Reserve) || !as.InReserve(in.Traces[0], "https://"+order[5]+".example/") ||
		as.InReserve(in.Traces[0], "https://"+order[0]+".example/") || as.AssignedTo(in.Traces[0], "https://"+order[5]+".example/") {
		t.Fatal("Assignments disagree with the report on the reserve")
	}

	in.Rules = RulesMesh2026v5
	if got := Compute(in).Traces[0]; got.Status != manifest.StatusValidated || got.Seen != 2 || got.Unassigned != 5 || got.Reserve != nil {
		t.Fatalf("under mesh-2026-5: %+v, want 2 counted, 5 unassigned, no reserve", got)
	}
}

// TestUnderMesh2026v6TheJuryIsMesh2026v5s: the reserve adds ranks after
// the jury and moves none of it, and a reserve seat left unanswered is no
// assignment: founders who validate only their juries' traces are never
// away, though most of their reserve seats went without a vote.
func TestUnderMesh2026v6TheJuryIsMesh2026v5s(t *testing.T) {
	names := []string{"f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12"}
	all := func(string, int) bool { return true }
	v5, juries5 := juriedDays(RulesMesh2026v5, names, 5, 8, all)
	v6, juries6 := juriedDays(RulesMesh2026v6, names, 5, 8, all)
	if !reflect.DeepEqual(juries5, juries6) {
		t.Fatal("mesh-2026-6 drew other juries than mesh-2026-5")
	}
	r5, r6 := Compute(v5), Compute(v6)
	for i := range r6.Traces {
		if len(r6.Traces[i].Reserve) != ReserveSize || r6.Traces[i].Status != r5.Traces[i].Status || r6.Traces[i].Seen != r5.Traces[i].Seen {
			t.Fatalf("%+v under mesh-2026-6, %+v under mesh-2026-5", r6.Traces[i], r5.Traces[i])
		}
	}
	as, _ := NewAssignments(v6)
	for _, n := range names {
		if as.Away("https://" + n + ".example/") {
			t.Fatalf("%s is away for the reserve seats it did not answer", n)
		}
	}
}

// TestUnderMesh2026v6AddingAVoteNeverUncountsAnother: whatever subset of
// the votes a node holds, every vote counted in it is counted with any
// further vote: counting is monotone, so no status depends on the order
// files arrive in.
func TestUnderMesh2026v6AddingAVoteNeverUncountsAnother(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for round := 0; round < 40; round++ {
		votes := map[int]string{}
		for rank := 0; rank < 12; rank++ {
			if rng.Intn(2) == 0 {
				votes[rank] = []string{"pass", "fail"}[rng.Intn(2)]
			}
		}
		all, _ := reserveMesh(RulesMesh2026v6, votes)
		full := counted(Compute(all))
		for drop := range votes {
			sub := without(votes, drop)
			in, _ := reserveMesh(RulesMesh2026v6, sub)
			for name := range counted(Compute(in)) {
				if !full[name] {
					t.Fatalf("votes %v: %s counted without rank %d's vote, not with it", votes, name, drop)
				}
			}
		}
	}
}

// counted is the founders whose vote counted in r.
func counted(r Report) map[string]bool {
	out := map[string]bool{}
	for _, a := range r.Agents {
		if a.ValidationsAuthored > 0 {
			out[a.Agent] = true
		}
	}
	return out
}

// without is votes without rank drop.
func without(votes map[int]string, drop int) map[int]string {
	out := map[int]string{}
	for k, v := range votes {
		if k != drop {
			out[k] = v
		}
	}
	return out
}

// TestUnderMesh2026v6AnUnansweredReserveSeatIsNoAssignment: the jury of
// ann's trace of March 1 votes on it, its reserve does not; a reserve
// seat is not an assignment (protocol §8.8, 6), so none of the reserve is
// away, and ann's trace of March 4 is judged by the plain weight order.
// Counting reserve seats as assignments would mark them away and redraw
// March 4, which the conformance vectors alone did not catch.
func TestUnderMesh2026v6AnUnansweredReserveSeatIsNoAssignment(t *testing.T) {
	names := []string{"f01", "f02", "f03", "f04", "f05", "f06", "f07", "f08", "f09", "f10", "f11"}
	t1 := dated(tr("ann", 1, "knowledge", "pebble"), 1)
	t2 := dated(tr("ann", 2, "knowledge", "pebble"), 4)
	in := Input{Rules: RulesMesh2026v6, Founders: founders(names...), Traces: []*ledger.Trace{t1, t2}}
	for _, n := range byWeight(t1.Hash, names)[:5] {
		in.Validations = append(in.Validations, at(val(n, t1.Hash, "pass"), 1))
	}
	as, _ := NewAssignments(in)
	for _, n := range byWeight(t1.Hash, names)[5:10] {
		if as.Away("https://" + n + ".example/") {
			t.Errorf("%s is away for a reserve seat it left unanswered", n)
		}
	}
	want := byWeight(t2.Hash, names)
	if got := traceResult(Compute(in), t2.Hash); fmt.Sprint(got.Jury, got.Reserve) != fmt.Sprint(want[:5], want[5:10]) {
		t.Errorf("March 4: jury %v reserve %v, want %v %v", got.Jury, got.Reserve, want[:5], want[5:10])
	}
}
