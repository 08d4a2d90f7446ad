package signal

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// lateMesh is sixteen founders, bob's trace of March 9 whose jury casts
// no vote, and ann's trace of March 10 (late epoch: March 12) with the
// given votes; it returns the input, ann's trace, and the late reserve
// protocol §8.8, 7 gives it, computed here from the rule's text: the
// rendezvous order over the founders, ann's jury and reserve (ranks 1–10,
// nobody being away on March 10) excepted, those away on March 12 (bob's
// silent jurors, and ann's silent jurors) after those present.
func lateMesh(rules string, votes []*ledger.Validation) (Input, *ledger.Trace, []string) {
	names := []string{"f01", "f02", "f03", "f04", "f05", "f06", "f07", "f08", "f09", "f10", "f11", "f12", "f13", "f14", "f15", "f16"}
	t0 := dated(tr("bob", 1, "knowledge", "pebble"), 9)
	t := dated(tr("ann", 1, "knowledge", "pebble"), 10)
	in := Input{Rules: rules, Founders: founders(names...), Traces: []*ledger.Trace{t0, t}, Validations: votes}
	order := byWeight(t.Hash, names)
	// Every vote here is dated March 10 or later, or not at all: a juror
	// of either trace is away unless one is dated before March 12.
	away := map[string]bool{}
	for _, n := range slices.Concat(byWeight(t0.Hash, names)[:JurySize], order[:JurySize]) {
		away[n] = !slices.ContainsFunc(votes, func(v *ledger.Validation) bool {
			return v.Validator == n && !v.ValidatedAt.IsZero() && v.ValidatedAt.Before(time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC))
		})
	}
	rest := order[JurySize+ReserveSize:]
	late := slices.Concat(slices.DeleteFunc(slices.Clone(rest), func(n string) bool { return away[n] }),
		slices.DeleteFunc(slices.Clone(rest), func(n string) bool { return !away[n] }))
	return in, t, late[:LateReserveSize]
}

// TestUnderMesh2026v7TheLateReserveIsDrawnFromThePoolTwoDaysOn: ann's
// jury and reserve cast nothing; its late reserve is drawn from the pool
// of March 12 with that day's away marks (bob's and ann's silent jurors
// rank after those present), and Assignments says the same as the
// report. Under mesh-2026-6 the same files give no late reserve.
func TestUnderMesh2026v7TheLateReserveIsDrawnFromThePoolTwoDaysOn(t *testing.T) {
	in, tr, want := lateMesh(RulesMesh2026v7, nil)
	if slices.Equal(want, byWeight(tr.Hash, founderNames(in))[JurySize+ReserveSize:][:LateReserveSize]) {
		t.Fatal("no member away within the late reserve's reach: the draw does not test the away marks")
	}
	got := traceResult(Compute(in), tr.Hash)
	if !slices.Equal(got.LateReserve, want) {
		t.Fatalf("late reserve %v, want %v", got.LateReserve, want)
	}
	if from := time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC); !got.LateReserveFrom.Equal(from) {
		t.Fatalf("late reserve from %v, want %v", got.LateReserveFrom, from)
	}
	as, _ := NewAssignments(in)
	if !slices.Equal(as.LateReserve(tr), want) || !as.InLateReserve(tr, "https://"+want[0]+".example/") ||
		as.InLateReserve(tr, "https://"+got.Jury[0]+".example/") || !as.LateFrom(tr).Equal(got.LateReserveFrom) {
		t.Fatal("Assignments disagree with the report on the late reserve")
	}
	in.Rules = RulesMesh2026v6
	if got := traceResult(Compute(in), tr.Hash); got.LateReserve != nil || !got.LateReserveFrom.IsZero() {
		t.Fatalf("under mesh-2026-6: %+v, want no late reserve", got)
	}
}

// TestUnderMesh2026v7ALateReserveVoteCountsFromTheLateEpochOn: of ann's
// late reserve, one passes at the first instant of March 12 and counts
// and earns; one passes a second before and one without a date, both
// unassigned; a founder outside every seat passing on March 12 is
// unassigned. Under mesh-2026-6 all four are unassigned.
func TestUnderMesh2026v7ALateReserveVoteCountsFromTheLateEpochOn(t *testing.T) {
	_, tr, late := lateMesh(RulesMesh2026v7, nil)
	h := tr.Hash
	early := val(late[1], h, "pass")
	early.ValidatedAt = time.Date(2026, 3, 11, 23, 59, 59, 0, time.UTC)
	votes := []*ledger.Validation{at(val(late[0], h, "pass"), 12), early, val(late[2], h, "pass")}
	in, _, late2 := lateMesh(RulesMesh2026v7, votes)
	if !slices.Equal(late, late2) {
		t.Fatalf("the votes moved the late reserve from %v to %v: choose other ranks", late, late2)
	}
	if len(in.Founders) > JurySize+ReserveSize+LateReserveSize {
		outsider := byWeight(h, founderNames(in))[JurySize+ReserveSize+LateReserveSize]
		if !slices.Contains(late, outsider) {
			in.Validations = append(in.Validations, at(val(outsider, h, "pass"), 12))
		}
	}
	r := Compute(in)
	got := traceResult(r, h)
	if got.Status != manifest.StatusValidated || got.Passing != 1 || got.Seen != 1 || got.Unassigned != len(in.Validations)-1 {
		t.Fatalf("under mesh-2026-7: %+v, want validated by 1 with the rest unassigned", got)
	}
	if a := agentByName(r, late[0]); a.ValidationsAuthored != 1 {
		t.Fatalf("%s's vote of March 12: %+v, want it counted", late[0], a)
	}
	for _, n := range late[1:3] {
		if a := agentByName(r, n); a.ValidationsAuthored != 0 || a.ValidationsUnassigned != 1 {
			t.Fatalf("%s's vote before March 12 or undated: %+v, want it unassigned", n, a)
		}
	}
	in.Rules = RulesMesh2026v6
	if got := traceResult(Compute(in), h); got.Seen != 0 || got.Unassigned != len(in.Validations) {
		t.Fatalf("under mesh-2026-6: %+v, want every vote unassigned", got)
	}
}

func founderNames(in Input) []string {
	out := make([]string, len(in.Founders))
	for i, f := range in.Founders {
		out[i] = f.Name
	}
	return out
}

// TestUnderMesh2026v7AddingAVoteNeverUncountsAnother: votes of random
// ranks of ann's order, dated March 10, 11, 12, 13 or not at all; every
// vote counted with a subset of them is counted with any one more, so no
// status depends on the order files arrive in. The votes left out of the
// check are the one kind the rule names: a vote by one of bob's jurors
// dated before March 12 makes it present for March 12, a file dated
// before the late epoch that can change its ranks (protocol §8.8, 6 and
// 7), as a file dated before an epoch can change its jury.
func TestUnderMesh2026v7AddingAVoteNeverUncountsAnother(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	in0, tr, _ := lateMesh(RulesMesh2026v7, nil)
	t0 := in0.Traces[0]
	names := founderNames(in0)
	order := byWeight(tr.Hash, names)
	bobs := byWeight(t0.Hash, names)[:JurySize]
	days := []int{0, 10, 11, 12, 13}
	checked := 0
	for round := 0; round < 60; round++ {
		var votes []*ledger.Validation
		for _, n := range order {
			if rng.Intn(2) == 0 {
				continue
			}
			v := val(n, tr.Hash, []string{"pass", "fail"}[rng.Intn(2)])
			if d := days[rng.Intn(len(days))]; d > 0 {
				v = at(v, d)
			}
			votes = append(votes, v)
		}
		full, _, _ := lateMesh(RulesMesh2026v7, votes)
		counts := counted(Compute(full))
		for i, v := range votes {
			if slices.Contains(bobs, v.Validator) && !v.ValidatedAt.IsZero() && v.ValidatedAt.Day() < 12 {
				continue
			}
			sub, _, _ := lateMesh(RulesMesh2026v7, slices.Delete(slices.Clone(votes), i, i+1))
			for name := range counted(Compute(sub)) {
				if !counts[name] {
					t.Fatalf("votes %v: %s counted without %s's vote, not with it", votes, name, v.Validator)
				}
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no vote checked")
	}
}

// TestUnderMesh2026v7AFileDatedBeforeTheLateEpochCanRedrawTheLateReserve
// shows the limit the rule names (protocol §8.8, 7): one of bob's
// jurors, away for March 12, whom ann's order ranks in its late reserve's
// reach, passes ann's trace on March 11: it is present for March 12, so
// it takes a late seat, and the last late juror's vote of March 12 stops
// counting. Nodes that read the March 11 file after that vote saw it
// count for a while; all agree once they hold the same files.
func TestUnderMesh2026v7AFileDatedBeforeTheLateEpochCanRedrawTheLateReserve(t *testing.T) {
	in, tr, late := lateMesh(RulesMesh2026v7, nil)
	order := byWeight(tr.Hash, founderNames(in))
	bobs := byWeight(in.Traces[0].Hash, founderNames(in))[:JurySize]
	var mover string
	for _, n := range order[JurySize+ReserveSize:] {
		if slices.Contains(bobs, n) && !slices.Contains(late, n) {
			mover = n
			break
		}
	}
	if mover == "" {
		t.Skip("no juror of bob's ranks behind ann's late reserve in this draw")
	}
	last := late[len(late)-1]
	before, _, _ := lateMesh(RulesMesh2026v7, []*ledger.Validation{at(val(last, tr.Hash, "pass"), 12)})
	after, _, want := lateMesh(RulesMesh2026v7, []*ledger.Validation{at(val(last, tr.Hash, "pass"), 12), at(val(mover, tr.Hash, "pass"), 11)})
	if got := traceResult(Compute(before), tr.Hash); got.Seen != 1 {
		t.Fatalf("before: %+v, want %s's vote counted", got, last)
	}
	got := traceResult(Compute(after), tr.Hash)
	if !slices.Equal(got.LateReserve, want) || slices.Contains(want, last) || got.Seen != 0 {
		t.Fatalf("after: %+v (late reserve %v), want %s in it and %s's vote unassigned", got, want, mover, last)
	}
}

// TestUnderMesh2026v7LateReserveVotesCountInLaterPools: bob's five
// capability rocks of March 1 are passed only by two members of each
// one's late reserve, on March 3; under mesh-2026-7 those votes count in
// the pools of later epochs too (the pool of March 4 is computed with
// the late reserves of March 1, drawn from the pool of March 3: no pool
// needs itself), so bob has standing as of March 4 and is drawn for
// ann's trace of that day, which ranks him first; under mesh-2026-6 the
// same votes are unassigned and he is not.
func TestUnderMesh2026v7LateReserveVotesCountInLaterPools(t *testing.T) {
	names := []string{"f01", "f02", "f03", "f04", "f05", "f06", "f07", "f08", "f09", "f10", "f11", "f12", "f13", "f14", "f15", "f16"}
	in := Input{Rules: RulesMesh2026v7, Founders: founders(names...)}
	for s := 1; s <= 5; s++ {
		in.Traces = append(in.Traces, dated(tr("bob", s, "capability", "rock"), 1))
	}
	as, _ := NewAssignments(in)
	for _, b := range in.Traces {
		for _, n := range as.LateReserve(b)[:2] {
			in.Validations = append(in.Validations, at(val(n, b.Hash, "pass"), 3))
		}
	}
	var ann *ledger.Trace
	for s := 1; ; s++ {
		ann = dated(tr("ann", s, "knowledge", "pebble"), 4)
		if byWeight(ann.Hash, append(slices.Clone(names), "bob"))[0] == "bob" {
			break
		}
	}
	in.Traces = append(in.Traces, ann)
	if got := traceResult(Compute(in), ann.Hash); !slices.Contains(got.Jury, "bob") {
		t.Fatalf("under mesh-2026-7: ann's jury %v, want bob, admitted by late reserve votes", got.Jury)
	}
	in.Rules = RulesMesh2026v6
	if got := traceResult(Compute(in), ann.Hash); slices.Contains(got.Jury, "bob") {
		t.Fatalf("under mesh-2026-6: ann's jury %v, want no bob: the late votes are unassigned", got.Jury)
	}
}

// TestUnderMesh2026v7NamesGroundForAKnownHashTakeNoLateSeat: ann's trace
// of March 10 is public; five names are ground to outrank every founder
// on its hash, and their agents get standing before March 12 (five
// capability rocks each of March 10, each passed on March 11 by two of
// its jury). Drawn from the pool of March 12, they would hold every late
// seat and fail the trace its present jury passed 5-0; the late reserve
// is drawn from the members of March 10, so they hold none, their votes
// are unassigned and the trace stays validated.
func TestUnderMesh2026v7NamesGroundForAKnownHashTakeNoLateSeat(t *testing.T) {
	names := []string{"f01", "f02", "f03", "f04", "f05", "f06", "f07", "f08", "f09", "f10", "f11", "f12", "f13", "f14", "f15", "f16"}
	ann := dated(tr("ann", 1, "knowledge", "pebble"), 10)
	in := Input{Rules: RulesMesh2026v7, Founders: founders(names...), Traces: []*ledger.Trace{ann}}
	top := byWeight(ann.Hash, names)[0]
	var sybils []string
	for i := 0; len(sybils) < LateReserveSize; i++ {
		if n := fmt.Sprintf("x%d", i); byWeight(ann.Hash, []string{n, top})[0] == n {
			sybils = append(sybils, n)
		}
	}
	for _, s := range sybils {
		for q := 1; q <= 5; q++ {
			in.Traces = append(in.Traces, dated(tr(s, q, "capability", "rock"), 10))
		}
	}
	as, _ := NewAssignments(in)
	for _, x := range in.Traces[1:] {
		for _, j := range as.Jury(x)[:2] {
			in.Validations = append(in.Validations, at(val(j, x.Hash, "pass"), 11))
		}
	}
	as, _ = NewAssignments(in)
	for _, j := range as.Jury(ann) {
		in.Validations = append(in.Validations, at(val(j, ann.Hash, "pass"), 10))
	}
	for _, s := range sybils {
		in.Validations = append(in.Validations, at(val(s, ann.Hash, "fail"), 12))
	}
	r := Compute(in)
	if a := agentByName(r, sybils[0]); !a.Standing {
		t.Fatalf("%s: %+v, want standing before March 12, or the test proves nothing", sybils[0], a)
	}
	got := traceResult(r, ann.Hash)
	for _, s := range sybils {
		if slices.Contains(got.LateReserve, s) {
			t.Fatalf("late reserve %v holds %s, admitted after ann's hash was public", got.LateReserve, s)
		}
	}
	if got.Status != manifest.StatusValidated || got.Passing != JurySize || got.Seen != JurySize {
		t.Fatalf("ann's trace: %+v, want validated by its jury alone", got)
	}
}

// TestUnderMesh2026v7ALateCandidateRanksByItsNameOfTheTraceEpoch: the
// lowest-ranked founder on ann's hash renames itself on March 11 (a
// trace under a name ground to outrank every founder on that hash, at
// the same URL); it keeps the rank of its name of March 10, so the late
// reserve is the one the names of March 10 give.
func TestUnderMesh2026v7ALateCandidateRanksByItsNameOfTheTraceEpoch(t *testing.T) {
	in, ann, want := lateMesh(RulesMesh2026v7, nil)
	names := founderNames(in)
	order := byWeight(ann.Hash, names)
	last := order[len(order)-1]
	if slices.Contains(want, last) {
		t.Fatalf("%s is in the late reserve %v already: choose another founder", last, want)
	}
	var alias string
	for i := 0; alias == ""; i++ {
		if n := fmt.Sprintf("y%d", i); byWeight(ann.Hash, []string{n, order[0]})[0] == n {
			alias = n
		}
	}
	renamed := dated(tr(alias, 1, "knowledge", "pebble"), 11)
	renamed.AgentURL = "https://" + last + ".example/"
	in.Traces = append(in.Traces, renamed)
	got := traceResult(Compute(in), ann.Hash)
	if len(got.LateReserve) != len(want) {
		t.Fatalf("late reserve %v, want %v", got.LateReserve, want)
	}
	for i, n := range got.LateReserve {
		if n != want[i] {
			t.Fatalf("late reserve %v, want %v: %s (now %s) ranked by its new name", got.LateReserve, want, last, alias)
		}
	}
}

// TestUnderMesh2026v7ALateCandidateMustStillHaveStanding: the first of
// ann's late reserve loses its standing on March 11 (three of its files
// disputed by two founders); it was in the pool of March 10, the jury's,
// but is not in that of March 12, so it is no late candidate and the
// next of the order takes its seat.
func TestUnderMesh2026v7ALateCandidateMustStillHaveStanding(t *testing.T) {
	in, ann, want := lateMesh(RulesMesh2026v7, nil)
	lost := want[0]
	others := slices.DeleteFunc(founderNames(in), func(n string) bool { return n == lost })
	for _, d := range disputesOf(lost, []int{57, 58, 59}, others[0], others[1]) {
		d.ObservedAt = time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC)
		in.Disputes = append(in.Disputes, d)
	}
	r := Compute(in)
	if a := agentByName(r, lost); a.Standing {
		t.Fatalf("%s: %+v, want it without standing, or the test proves nothing", lost, a)
	}
	got := traceResult(r, ann.Hash)
	if slices.Contains(got.Jury, lost) || slices.Contains(got.Reserve, lost) {
		t.Fatalf("ann's jury %v and reserve %v hold %s: its disputes moved the draw of March 10", got.Jury, got.Reserve, lost)
	}
	if slices.Contains(got.LateReserve, lost) || len(got.LateReserve) != LateReserveSize || !slices.Contains(got.LateReserve, want[1]) {
		t.Fatalf("late reserve %v, want %v without %s, who lost standing before March 12", got.LateReserve, want, lost)
	}
}
