package signal

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

func tr(agent string, seq int, typ, cat string) *ledger.Trace {
	return &ledger.Trace{Agent: agent, AgentURL: "https://" + agent + ".example/", Hash: hash(agent, seq), Seq: manifest.Seq(seq), Type: typ, Category: cat,
		URL: fmt.Sprintf("https://%s.example/traces/%03d.md", agent, seq)}
}

func hash(agent string, seq int) manifest.Hash {
	return manifest.Hash(fmt.Sprintf("sha256:%s-%d", agent, seq))
}

func val(validator string, traceHash manifest.Hash, result string) *ledger.Validation {
	return &ledger.Validation{Validator: validator, ValidatorURL: "https://" + validator + ".example/", TraceHash: traceHash, Result: result}
}

// scored is a validation with six scores and the total they make.
func scored(validator string, traceHash manifest.Hash, result string, s ...int) *ledger.Validation {
	v := val(validator, traceHash, result)
	copy(v.Scores[:], s)
	v.HasScores, v.Total = true, v.Scores.Total()
	return v
}

// clone is a copy of the record r points at.
func clone[T any](r *T) *T {
	c := *r
	return &c
}

// at is a copy of v dated day days into March 2026.
func at(v *ledger.Validation, day int) *ledger.Validation {
	c := *v
	c.ValidatedAt = time.Date(2026, 3, day, 0, 0, 0, 0, time.UTC)
	return &c
}

func founders(names ...string) []Founder {
	var out []Founder
	for _, n := range names {
		out = append(out, Founder{Name: n, URL: "https://" + n + ".example/"})
	}
	return out
}

func agentByName(r Report, name string) Agent {
	for _, a := range r.Agents {
		if a.Agent == name {
			return a
		}
	}
	return Agent{}
}

func TestComputeHandComputedMeshes(t *testing.T) {
	tests := []struct {
		name       string
		in         Input
		signals    map[string]float64
		tiers      map[string]string
		statuses   map[manifest.Hash]manifest.Status // hash → status
		traceSig   map[manifest.Hash]float64
		authored   map[string]int
		uncounted  map[string]int
		validatedN map[string]int
	}{
		{
			name:    "unvalidated trace is pending and earns nothing",
			in:      Input{Traces: []*ledger.Trace{tr("ann", 1, "capability", "rock")}},
			signals: map[string]float64{"ann": 0}, tiers: map[string]string{"ann": TierProvisional},
			statuses: map[manifest.Hash]manifest.Status{hash("ann", 1): manifest.StatusPending}, traceSig: map[manifest.Hash]float64{hash("ann", 1): 0},
		},
		{
			name: "founders' passes validate: capability rock 10, each validation 1, founders start at 50",
			in: Input{
				Traces:      []*ledger.Trace{tr("ann", 1, "capability", "rock"), tr("ann", 2, "knowledge", "pebble")},
				Validations: []*ledger.Validation{val("bob", hash("ann", 1), "pass"), val("cy", hash("ann", 1), "pass"), val("bob", hash("ann", 2), "pass")},
				Founders:    founders("bob", "cy"),
			},
			signals:    map[string]float64{"ann": 12, "bob": 52, "cy": 51},
			tiers:      map[string]string{"ann": TierProvisional, "bob": TierEstablished},
			statuses:   map[manifest.Hash]manifest.Status{hash("ann", 1): manifest.StatusValidated, hash("ann", 2): manifest.StatusValidated},
			traceSig:   map[manifest.Hash]float64{hash("ann", 1): 1},
			authored:   map[string]int{"bob": 2, "cy": 1},
			validatedN: map[string]int{"ann": 2},
		},
		{
			name: "validations by agents without standing earn nothing and count for nothing",
			in: Input{
				Traces:      []*ledger.Trace{tr("ann", 1, "capability", "rock"), tr("ann", 2, "capability", "rock"), tr("ann", 3, "knowledge", "rock")},
				Validations: []*ledger.Validation{val("bob", hash("ann", 1), "pass"), val("bob", hash("ann", 2), "pass"), val("bob", hash("ann", 3), "fail")},
			},
			signals:   map[string]float64{"ann": 0, "bob": 0},
			tiers:     map[string]string{"bob": TierProvisional},
			statuses:  map[manifest.Hash]manifest.Status{hash("ann", 1): manifest.StatusPending, hash("ann", 3): manifest.StatusPending},
			authored:  map[string]int{"bob": 0},
			uncounted: map[string]int{"bob": 3},
		},
		{
			name: "unanimous fail fails and earns the author nothing",
			in: Input{
				Traces:      []*ledger.Trace{tr("ann", 1, "signal", "rock")},
				Validations: []*ledger.Validation{val("bob", hash("ann", 1), "fail"), val("cy", hash("ann", 1), "FAIL")},
				Founders:    founders("bob", "cy"),
			},
			signals:  map[string]float64{"ann": 0, "bob": 51, "cy": 51},
			statuses: map[manifest.Hash]manifest.Status{hash("ann", 1): manifest.StatusFailed}, traceSig: map[manifest.Hash]float64{hash("ann", 1): 0},
		},
		{
			name: "the majority of votes with standing decides; a vote without standing is not one of them",
			in: Input{
				Traces:      []*ledger.Trace{tr("ann", 1, "knowledge", "rock"), tr("ann", 2, "knowledge", "rock")},
				Validations: []*ledger.Validation{val("bob", hash("ann", 1), "pass"), val("cy", hash("ann", 1), "fail"), val("dee", hash("ann", 1), "pass"), val("p1", hash("ann", 1), "fail"), val("p2", hash("ann", 1), "fail"), val("bob", hash("ann", 2), "pass"), val("cy", hash("ann", 2), "fail")},
				Founders:    founders("bob", "cy", "dee"),
			},
			signals:  map[string]float64{"ann": 6, "p1": 0},
			statuses: map[manifest.Hash]manifest.Status{hash("ann", 1): manifest.StatusValidated, hash("ann", 2): manifest.StatusContested},
			traceSig: map[manifest.Hash]float64{hash("ann", 1): 2.0 / 3, hash("ann", 2): 0.5},
		},
		{
			name: "self-validation is ignored and duplicate votes count once",
			in: Input{
				Traces: []*ledger.Trace{tr("ann", 1, "task", "sand")},
				Validations: []*ledger.Validation{val("Ann", hash("ann", 1), "fail"), val("bob", hash("ann", 1), "pass"), val("bob", hash("ann", 1), "pass"),
					{Validator: "ann-bot", ValidatorURL: "https://ann.example/", TraceHash: hash("ann", 1), Result: "fail"}},
				Founders: founders("bob", "ann"),
			},
			signals:  map[string]float64{"ann": 50.5, "bob": 51},
			statuses: map[manifest.Hash]manifest.Status{hash("ann", 1): manifest.StatusValidated}, authored: map[string]int{"bob": 1, "ann": 0},
		},
		{
			name: "verdict read from the total when the word is missing; unknown traces earn nothing",
			in: Input{
				Traces:      []*ledger.Trace{tr("ann", 1, "knowledge", "rock")},
				Validations: []*ledger.Validation{{Validator: "bob", ValidatorURL: "https://bob.example/", TraceHash: hash("ann", 1), Total: 18}, val("bob", "sha256:never-seen", "pass")},
				Founders:    founders("bob"),
			},
			signals:  map[string]float64{"ann": 6, "bob": 51},
			statuses: map[manifest.Hash]manifest.Status{hash("ann", 1): manifest.StatusValidated},
		},
		{
			name: "a score outside 0-5 or a result the scores contradict counts for nothing (docs/decisions.md)",
			in: Input{
				Traces: []*ledger.Trace{tr("ann", 1, "knowledge", "rock"), tr("ann", 2, "knowledge", "rock"), tr("ann", 3, "knowledge", "rock")},
				Validations: []*ledger.Validation{
					scored("bob", hash("ann", 1), "pass", 7, 3, 3, 3, 3, 3), // 22 of 30, but 7 is no score
					scored("bob", hash("ann", 2), "pass", 2, 2, 2, 2, 2, 2), // 12 of 30 says fail
					scored("bob", hash("ann", 3), "", 4, 3, 4, 4, 4, 3),     // 22 of 30: a pass
				},
				Founders: founders("bob"),
			},
			signals: map[string]float64{"ann": 6, "bob": 51},
			statuses: map[manifest.Hash]manifest.Status{hash("ann", 1): manifest.StatusPending, hash("ann", 2): manifest.StatusPending,
				hash("ann", 3): manifest.StatusValidated},
			authored: map[string]int{"bob": 1},
		},
		{
			name: "of a validator's files on one trace the one written last counts",
			in: Input{
				Traces: []*ledger.Trace{tr("ann", 1, "knowledge", "rock"), tr("ann", 2, "knowledge", "rock")},
				Validations: []*ledger.Validation{
					at(val("bob", hash("ann", 1), "fail"), 1), at(val("bob", hash("ann", 1), "pass"), 2),
					at(val("bob", hash("ann", 2), "pass"), 2), at(val("bob", hash("ann", 2), "fail"), 1),
				},
				Founders: founders("bob"),
			},
			signals:  map[string]float64{"ann": 12, "bob": 52},
			statuses: map[manifest.Hash]manifest.Status{hash("ann", 1): manifest.StatusValidated, hash("ann", 2): manifest.StatusValidated},
		},
		{
			name: "types and categories outside the table earn the category floor",
			in: Input{
				Traces: []*ledger.Trace{tr("ann", 1, "synthesis", "rock"), tr("ann", 2, "response", "pebble"), tr("ann", 3, "spec", ""), tr("ann", 4, "knowledge", "boulder")},
				Validations: []*ledger.Validation{val("bob", hash("ann", 1), "pass"), val("bob", hash("ann", 2), "pass"),
					val("bob", hash("ann", 3), "pass"), val("bob", hash("ann", 4), "pass")},
				Founders: founders("bob"),
			},
			signals: map[string]float64{"ann": 4 + 1 + 0.5 + 6, "bob": 54},
		},
		{
			name: "a founder is matched by URL: its name at another URL has no standing",
			in: Input{
				Traces: []*ledger.Trace{tr("ann", 1, "capability", "pebble")},
				Validations: []*ledger.Validation{{Validator: "boss", ValidatorURL: "https://impostor.example/", TraceHash: hash("ann", 1), Result: "pass"},
					{Validator: "anyone", ValidatorURL: "https://boss.example", TraceHash: hash("ann", 1), Result: "fail"}},
				Founders: founders("boss"),
			},
			signals:  map[string]float64{"ann": 0, "boss": 51},
			tiers:    map[string]string{"boss": TierEstablished, "ann": TierProvisional},
			statuses: map[manifest.Hash]manifest.Status{hash("ann", 1): manifest.StatusFailed},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compute(tt.in)
			for name, want := range tt.signals {
				if got := agentByName(r, name).Signal; got != want {
					t.Errorf("%s: SIGNAL %v, want %v (%+v)", name, got, want, agentByName(r, name))
				}
			}
			for name, want := range tt.tiers {
				if got := agentByName(r, name).Tier; got != want {
					t.Errorf("%s: tier %q, want %q", name, got, want)
				}
			}
			for h, want := range tt.statuses {
				if got := statusOf(r, h); got != want {
					t.Errorf("%s: status %q, want %q", h, got, want)
				}
			}
			for h, want := range tt.traceSig {
				for _, x := range r.Traces {
					if x.Hash == h && x.Signal != want {
						t.Errorf("%s: trace signal %v, want %v", h, x.Signal, want)
					}
				}
			}
			for name, want := range tt.authored {
				if got := agentByName(r, name).ValidationsAuthored; got != want {
					t.Errorf("%s: validations authored %d, want %d", name, got, want)
				}
			}
			for name, want := range tt.uncounted {
				if got := agentByName(r, name).ValidationsUncounted; got != want {
					t.Errorf("%s: validations uncounted %d, want %d", name, got, want)
				}
			}
			for name, want := range tt.validatedN {
				if got := agentByName(r, name).TracesValidated; got != want {
					t.Errorf("%s: traces validated %d, want %d", name, got, want)
				}
			}
		})
	}
}

// The case of the report that led to this rule: a node with the standing
// gate off scored every trace it saw and headlined its own "SIGNAL 849,
// Trusted". Without standing, volume earns nothing.
func TestVolumeWithoutStandingEarnsNothing(t *testing.T) {
	in := Input{Founders: founders("boss")}
	for i := 1; i <= 849; i++ {
		x := tr("peer", i, "knowledge", "pebble")
		in.Traces = append(in.Traces, x)
		in.Validations = append(in.Validations, val("spammer", x.Hash, "pass"))
	}
	r := Compute(in)
	s := agentByName(r, "spammer")
	if s.Signal != 0 || s.Tier != TierProvisional || s.Standing || s.ValidationsAuthored != 0 || s.ValidationsUncounted != 849 {
		t.Errorf("spammer: %+v, want SIGNAL 0, Provisional, no standing, 849 uncounted", s)
	}
	if p := agentByName(r, "peer"); p.Signal != 0 || p.TracesValidated != 0 {
		t.Errorf("peer: %+v, want nothing validated by votes that do not count", p)
	}
	for _, x := range r.Traces {
		if x.Status != manifest.StatusPending || x.Seen != 0 || x.Uncounted != 1 {
			t.Fatalf("%s: %+v, want pending with one uncounted vote", x.Hash, x)
		}
	}
}

func TestStandingSpreadsFromFoundersInRounds(t *testing.T) {
	// boss (founder) passes five of cy's capability rocks: 50, so cy is
	// admitted in round 1. cy's votes then count: dan's knowledge rocks
	// it passed are validated in round 2, and ed, who validated nothing
	// that counts, stays Provisional however much it wrote.
	in := Input{Founders: founders("boss")}
	for i := 1; i <= 5; i++ {
		c := tr("cy", i, "capability", "rock")
		in.Traces = append(in.Traces, c)
		in.Validations = append(in.Validations, val("boss", c.Hash, "pass"))
	}
	for i := 1; i <= 9; i++ {
		d := tr("dan", i, "knowledge", "rock")
		in.Traces = append(in.Traces, d)
		in.Validations = append(in.Validations, val("cy", d.Hash, "pass"), val("ed", d.Hash, "fail"))
	}
	r := Compute(in)
	cy := agentByName(r, "cy")
	if !cy.Standing || cy.StandingRound != 1 || cy.Signal != 50+9 || cy.Tier != TierEstablished {
		t.Errorf("cy: %+v, want standing from round 1, SIGNAL 59, Established", cy)
	}
	dan := agentByName(r, "dan")
	if !dan.Standing || dan.StandingRound != 2 || dan.Signal != 54 || dan.TracesValidated != 9 {
		t.Errorf("dan: %+v, want standing from round 2 with 9 validated knowledge rocks", dan)
	}
	if ed := agentByName(r, "ed"); ed.Standing || ed.Signal != 0 || ed.ValidationsUncounted != 9 {
		t.Errorf("ed: %+v, want no standing and 9 uncounted", ed)
	}
	if boss := agentByName(r, "boss"); !boss.Founder || boss.StandingRound != 0 || boss.Signal != 55 {
		t.Errorf("boss: %+v, want a founder at 50 + 5 validations", boss)
	}
	if r.Rounds != 3 {
		t.Errorf("rounds %d, want 3 (admit cy, admit dan, admit nobody)", r.Rounds)
	}
}

func TestStandingOnceAdmittedIsKeptWithinTheClosure(t *testing.T) {
	// cy is admitted in round 1 on boss's passes of five capability
	// rocks. dan, admitted in round 2 through cy, fails three of them: 1–1
	// ties are contested and cy's SIGNAL falls below 50, but cy keeps
	// standing (and Established): revoking it would drop cy's votes and
	// with them dan's standing, and the rounds might never settle.
	in := Input{Founders: founders("boss")}
	for i := 1; i <= 5; i++ {
		c := tr("cy", i, "capability", "rock")
		in.Traces = append(in.Traces, c)
		in.Validations = append(in.Validations, val("boss", c.Hash, "pass"))
		if i <= 3 {
			in.Validations = append(in.Validations, val("dan", c.Hash, "fail"))
		}
	}
	for i := 1; i <= 9; i++ {
		d := tr("dan", i, "knowledge", "rock")
		in.Traces = append(in.Traces, d)
		in.Validations = append(in.Validations, val("cy", d.Hash, "pass"))
	}
	r := Compute(in)
	cy := agentByName(r, "cy")
	if !cy.Standing || cy.Signal != 20+9 || cy.Tier != TierEstablished {
		t.Errorf("cy: %+v, want standing kept at SIGNAL 29, Established", cy)
	}
	if got := statusOf(r, hash("cy", 1)); got != manifest.StatusContested {
		t.Errorf("cy's first trace: %q, want contested", got)
	}
	if again := Compute(in); !reflect.DeepEqual(again, r) {
		t.Error("the same input gave another report")
	}
}

func TestComputeIsDeterministicAndSorted(t *testing.T) {
	in := Input{
		Traces:      []*ledger.Trace{tr("b", 1, "knowledge", "rock"), tr("a", 1, "knowledge", "rock"), tr("c", 2, "signal", "pebble"), tr("c", 1, "signal", "pebble")},
		Validations: []*ledger.Validation{val("c", hash("a", 1), "pass"), val("a", hash("b", 1), "pass"), val("b", hash("c", 1), "fail"), val("z", hash("a", 1), "pass")},
		Founders:    []Founder{{Name: "z", URL: "https://z.example/"}, {Name: "c", URL: "https://c.example/"}},
	}
	first := Compute(in)
	rev := in
	rev.Traces = []*ledger.Trace{in.Traces[3], in.Traces[2], in.Traces[1], in.Traces[0]}
	rev.Validations = []*ledger.Validation{in.Validations[3], in.Validations[2], in.Validations[1], in.Validations[0]}
	rev.Founders = []Founder{in.Founders[1], in.Founders[0]}
	for i := 0; i < 10; i++ {
		if again := Compute(rev); !reflect.DeepEqual(again, first) {
			t.Fatalf("input order changed the report:\n%+v\n%+v", again, first)
		}
	}
	var names []string
	for _, a := range first.Agents {
		names = append(names, a.Agent)
	}
	if want := []string{"c", "z", "a", "b"}; !reflect.DeepEqual(names, want) {
		t.Errorf("agents in order %v, want %v (signal desc, then name)", names, want)
	}
}

// statusOf returns the resolved status of the trace with the given hash,
// or "" when the report does not hold it.
func statusOf(r Report, hash manifest.Hash) manifest.Status {
	for _, t := range r.Traces {
		if t.Hash == hash {
			return t.Status
		}
	}
	return ""
}
