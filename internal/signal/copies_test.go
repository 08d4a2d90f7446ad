package signal

import (
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// listedBy is trace t as agent lists it at seq: the same bytes (hash) at
// another agent's URL.
func listedBy(t *ledger.Trace, agent string, seq int) *ledger.Trace {
	c := tr(agent, seq, t.Type, t.Category)
	c.Hash = t.Hash
	return c
}

// filedAs is a copy of validation v as the file with hash h that agent
// lists.
func filedAs(v *ledger.Validation, agent string, h manifest.Hash) *ledger.Validation {
	c := *v
	c.Validator, c.ValidatorURL, c.SourceHash = agent, "https://"+agent+".example/", h
	return &c
}

// mirrorInput is issue 20's third attack: mallory lists a copy of alice's
// knowledge rock; founders fred and gina pass it (fred's file also copied
// by mallory). first says which listing the node read first.
func mirrorInput(rules string, malloryFirst bool) Input {
	alice := tr("alice", 4, "knowledge", "rock")
	mallory := listedBy(alice, "mallory", 1)
	fred := filedAs(at(val("fred", alice.Hash, "pass"), 3), "fred", "sha256:fred-val")
	in := Input{Founders: founders("fred", "gina"), Rules: rules,
		Traces: []*ledger.Trace{alice}, Copies: []*ledger.Trace{mallory},
		Validations: []*ledger.Validation{
			fred, filedAs(fred, "mallory", "sha256:fred-val"),
			filedAs(at(val("gina", alice.Hash, "pass"), 3), "gina", "sha256:gina-val"),
		}}
	if malloryFirst {
		in.Traces, in.Copies = in.Copies, in.Traces
	}
	return in
}

func TestUnderMesh2026v3CopiedBytesEarnNobodyAndKeepEveryVote(t *testing.T) {
	for _, malloryFirst := range []bool{false, true} {
		r := Compute(mirrorInput(RulesMesh2026v3, malloryFirst))
		results := map[string]TraceResult{}
		for _, tr := range r.Traces {
			results[tr.Agent] = tr
		}
		for _, name := range []string{"alice", "mallory"} {
			got := results[name]
			if got.Status != manifest.StatusValidated || got.Passing != 2 || got.Seen != 2 || !got.Copy {
				t.Errorf("mallory first %v: %s's record: %+v; want validated 2 of 2, a copy", malloryFirst, name, got)
			}
			a := agentByName(r, name)
			want := []Earning{{Reason: "knowledge rock validated" + ReasonCopied, Count: 1}}
			if a.Signal != 0 || !reflect.DeepEqual(a.Breakdown, want) {
				t.Errorf("mallory first %v: %s: SIGNAL %v %+v; want 0 from one copied trace", malloryFirst, name, a.Signal, a.Breakdown)
			}
		}
		// fred's file is copied: it counts, but earns nothing; gina's agrees
		// with fred's pass and earns 1.
		if fred := agentByName(r, "fred"); fred.Signal != FounderPoints || fred.ValidationsAuthored != 1 {
			t.Errorf("fred: SIGNAL %v, %d counted; want %v, 1", fred.Signal, fred.ValidationsAuthored, FounderPoints)
		}
		if gina := agentByName(r, "gina"); gina.Signal != FounderPoints+1 {
			t.Errorf("gina: SIGNAL %v, want %v", gina.Signal, FounderPoints+1)
		}
		// mallory lists the trace, so her copy of fred's pass is a vote on
		// her own listing: dropped, not uncounted.
		if m := agentByName(r, "mallory"); m.ValidationsUncounted != 0 || m.ValidationsAuthored != 0 {
			t.Errorf("mallory: %d counted, %d uncounted votes; want none", m.ValidationsAuthored, m.ValidationsUncounted)
		}
	}
}

// TestUnderMesh2026v3WhoWasReadFirstChangesNothing: the same files give
// the same report whichever listing the node read first.
func TestUnderMesh2026v3WhoWasReadFirstChangesNothing(t *testing.T) {
	a, b := Compute(mirrorInput(RulesMesh2026v3, false)), Compute(mirrorInput(RulesMesh2026v3, true))
	if !reflect.DeepEqual(a, b) {
		t.Errorf("reports differ by reading order:\n%+v\n%+v", a, b)
	}
}

// TestEarlierRulesIgnoreCopies: mesh-2026-1 and mesh-2026-2 compute from
// the first listing read alone, as before copies were recorded, so their
// numbers do not change: the copier read first takes the credit.
func TestEarlierRulesIgnoreCopies(t *testing.T) {
	for _, rules := range []string{RulesMesh2026v1, RulesMesh2026v2} {
		in := mirrorInput(rules, true)
		withCopies := Compute(in)
		in.Copies = nil
		if without := Compute(in); !reflect.DeepEqual(withCopies, without) {
			t.Errorf("%s: copies changed the report", rules)
		}
		if m := agentByName(withCopies, "mallory"); m.Signal == 0 || m.TracesValidated != 1 {
			t.Errorf("%s: mallory SIGNAL %v, %d validated; want the copy credited", rules, m.Signal, m.TracesValidated)
		}
	}
}

// TestUnderMesh2026v3AListerWithStandingCannotVoteOnTheBytesItLists:
// founder mallory lists a copy of alice's trace and fails it; her vote is
// on bytes she publishes herself, so it is dropped.
func TestUnderMesh2026v3AListerWithStandingCannotVoteOnTheBytesItLists(t *testing.T) {
	alice := tr("alice", 1, "knowledge", "pebble")
	in := Input{Founders: founders("mallory", "fred"), Rules: RulesMesh2026v3,
		Traces: []*ledger.Trace{alice}, Copies: []*ledger.Trace{listedBy(alice, "mallory", 9)},
		Validations: []*ledger.Validation{val("mallory", alice.Hash, "fail"), val("fred", alice.Hash, "pass")}}
	for _, tr := range Compute(in).Traces {
		if tr.Status != manifest.StatusValidated || tr.Seen != 1 {
			t.Errorf("%s's record: %s, %d of %d; want validated by fred alone", tr.Agent, tr.Status, tr.Passing, tr.Seen)
		}
	}
}
