package signal

import (
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/verdict"
)

// TestUnderNewRulesAVerdictCountsOnItsTracesDay holds that a verdict in a
// trace is a vote dated by the trace's submitted time for mesh-2026-2's
// day bound, as a validation file is by its validated_at: bob judges twelve
// of ann's traces in two validation traces a day apart, and gina's passes
// settle each, so bob's twelve agreeing votes fall six on each day and
// all earn.
func TestUnderNewRulesAVerdictCountsOnItsTracesDay(t *testing.T) {
	in := Input{Founders: founders("bob", "gina"), Rules: RulesMesh2026v2}
	var first, second []ledger.Verdict
	for s := 1; s <= 12; s++ {
		in.Traces = append(in.Traces, filed("ann", s, ""))
		in.Validations = append(in.Validations, at(val("gina", hash("ann", s), "pass"), 1))
		v := ledger.Verdict{Agent: "ann", Seq: s, Result: string(verdict.Valid)}
		if s <= 6 {
			first = append(first, v)
		} else {
			second = append(second, v)
		}
	}
	day1, day2 := judging("bob", 101, first...), judging("bob", 102, second...)
	day1.Submitted = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	day2.Submitted = time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)
	in.Traces = append(in.Traces, day1, day2)

	r := Compute(in)
	bob := agentByName(r, "bob")
	if bob.Signal != 62 || bob.ValidationsAuthored != 12 {
		t.Errorf("bob: SIGNAL %v from %d counted votes, want 62 from 12 (%+v)", bob.Signal, bob.ValidationsAuthored, bob.Breakdown)
	}
	if gina := agentByName(r, "gina"); gina.Signal != 60 {
		t.Errorf("gina: SIGNAL %v, want 60: twelve agreeing votes on one day earn 10 (%+v)", gina.Signal, gina.Breakdown)
	}
}

// TestUnderNewRulesTheLastFileAValidatorWroteCountsOnItsDay holds the
// two rules a validator's vote is chosen and dated by, together: of f1's
// two files on ann/1, the one it wrote last counts (a pass, which agrees
// with f2's), and it counts on the day that file says, where f1's ten other
// agreeing votes already fill the day bound.
func TestUnderNewRulesTheLastFileAValidatorWroteCountsOnItsDay(t *testing.T) {
	in := Input{Founders: founders("f1", "f2"), Rules: RulesMesh2026v2}
	in.Traces = append(in.Traces, tr("ann", 1, "knowledge", "pebble"))
	in.Validations = append(in.Validations,
		at(val("f1", hash("ann", 1), "fail"), 1), at(val("f1", hash("ann", 1), "pass"), 3),
		at(val("f2", hash("ann", 1), "pass"), 1))
	for s := 2; s <= 11; s++ {
		in.Traces = append(in.Traces, tr("ann", s, "knowledge", "pebble"))
		in.Validations = append(in.Validations, at(val("f1", hash("ann", s), "pass"), 3), at(val("f2", hash("ann", s), "pass"), 2))
	}

	r := Compute(in)
	for _, tr := range r.Traces {
		if tr.Hash == hash("ann", 1) && (tr.Status != manifest.StatusValidated || tr.Passing != 2) {
			t.Errorf("ann/1: %s with %d of %d passing, want validated 2 of 2: f1's later pass counts", tr.Status, tr.Passing, tr.Seen)
		}
	}
	if f1 := agentByName(r, "f1"); f1.Signal != 60 {
		t.Errorf("f1: SIGNAL %v, want 60: its eleven agreeing votes all count on 3 March (%+v)", f1.Signal, f1.Breakdown)
	}
	if f2 := agentByName(r, "f2"); f2.Signal != 61 {
		t.Errorf("f2: SIGNAL %v, want 61: 1 on 1 March, 10 on 2 March (%+v)", f2.Signal, f2.Breakdown)
	}
}

// TestTheTrustGraphCountsTheVotesOfAgentsTheRuleSetAdmits holds that the
// trust graph's counted votes follow the standing the closure of the
// mesh's rule set gave: mallory's fail of honest's trace counts under
// mesh-2026-1, not under mesh-2026-2 (one founder's passes admit nobody),
// and counts again once a second founder's passes admit mallory.
func TestTheTrustGraphCountsTheVotesOfAgentsTheRuleSetAdmits(t *testing.T) {
	corroborated := boughtStanding(RulesMesh2026v2)
	for s := 1; s <= 5; s++ {
		corroborated.Validations = append(corroborated.Validations, val("gina", hash("mallory", s), "pass"))
	}
	tests := []struct {
		name    string
		in      Input
		counted int
	}{
		{"mesh-2026-1", boughtStanding(RulesMesh2026v1), 1},
		{"mesh-2026-2", boughtStanding(RulesMesh2026v2), 0},
		{"mesh-2026-2, admitted by two founders", corroborated, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var edge *Edge
			for _, e := range Compute(tt.in).Trust {
				if e.Validator == "mallory" && e.Agent == "honest" {
					edge = &e
				}
			}
			if edge == nil || edge.Fail != 1 || edge.Counted != tt.counted {
				t.Errorf("mallory → honest: %+v, want 1 fail, %d counted", edge, tt.counted)
			}
		})
	}
}
