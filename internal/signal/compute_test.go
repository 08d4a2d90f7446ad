package signal

import (
	"fmt"
	"reflect"
	"testing"
)

func tr(agent string, seq int, typ, cat string) Trace {
	return Trace{Agent: agent, AgentURL: "https://" + agent + ".example/", Hash: hash(agent, seq), Seq: seq, Type: typ, Category: cat,
		URL: fmt.Sprintf("https://%s.example/traces/%03d.md", agent, seq)}
}

func hash(agent string, seq int) string { return fmt.Sprintf("sha256:%s-%d", agent, seq) }

func val(validator, traceHash, result string) Validation {
	return Validation{Validator: validator, ValidatorURL: "https://" + validator + ".example/", TraceHash: traceHash, Result: result}
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
		statuses   map[string]string // hash → status
		traceSig   map[string]float64
		authored   map[string]int
		validatedN map[string]int
	}{
		{
			name:    "unvalidated trace is pending and earns nothing",
			in:      Input{Traces: []Trace{tr("ann", 1, "capability", "rock")}},
			signals: map[string]float64{"ann": 0}, tiers: map[string]string{"ann": TierProvisional},
			statuses: map[string]string{hash("ann", 1): StatusPending}, traceSig: map[string]float64{hash("ann", 1): 0},
		},
		{
			name: "unanimous pass validates: capability rock 10, each validation 1",
			in: Input{
				Traces:      []Trace{tr("ann", 1, "capability", "rock"), tr("ann", 2, "knowledge", "pebble")},
				Validations: []Validation{val("bob", hash("ann", 1), "pass"), val("cy", hash("ann", 1), "pass"), val("bob", hash("ann", 2), "pass")},
			},
			signals:    map[string]float64{"ann": 12, "bob": 2, "cy": 1},
			statuses:   map[string]string{hash("ann", 1): StatusValidated, hash("ann", 2): StatusValidated},
			traceSig:   map[string]float64{hash("ann", 1): 1},
			authored:   map[string]int{"bob": 2, "cy": 1},
			validatedN: map[string]int{"ann": 2},
		},
		{
			name: "unanimous fail fails and earns the author nothing",
			in: Input{
				Traces:      []Trace{tr("ann", 1, "signal", "rock")},
				Validations: []Validation{val("bob", hash("ann", 1), "fail"), val("cy", hash("ann", 1), "FAIL")},
			},
			signals:  map[string]float64{"ann": 0, "bob": 1, "cy": 1},
			statuses: map[string]string{hash("ann", 1): StatusFailed}, traceSig: map[string]float64{hash("ann", 1): 0},
		},
		{
			name: "split among provisional validators is contested: signal is passing over seen",
			in: Input{
				Traces:      []Trace{tr("ann", 1, "knowledge", "rock")},
				Validations: []Validation{val("bob", hash("ann", 1), "pass"), val("cy", hash("ann", 1), "fail"), val("dee", hash("ann", 1), "pass")},
			},
			signals:  map[string]float64{"ann": 0},
			statuses: map[string]string{hash("ann", 1): StatusContested}, traceSig: map[string]float64{hash("ann", 1): 2.0 / 3},
		},
		{
			name: "self-validation is ignored and duplicate votes count once",
			in: Input{
				Traces: []Trace{tr("ann", 1, "task", "sand")},
				Validations: []Validation{val("Ann", hash("ann", 1), "fail"), val("bob", hash("ann", 1), "pass"), val("bob", hash("ann", 1), "pass"),
					{Validator: "ann-bot", ValidatorURL: "https://ann.example/", TraceHash: hash("ann", 1), Result: "fail"}},
			},
			signals:  map[string]float64{"ann": 0.5, "bob": 1},
			statuses: map[string]string{hash("ann", 1): StatusValidated}, authored: map[string]int{"bob": 1, "ann": 0},
		},
		{
			name: "verdict read from the total when the word is missing; unknown traces earn nothing",
			in: Input{
				Traces:      []Trace{tr("ann", 1, "knowledge", "rock")},
				Validations: []Validation{{Validator: "bob", TraceHash: hash("ann", 1), Total: 18}, val("bob", "sha256:never-seen", "pass")},
			},
			signals:  map[string]float64{"ann": 6, "bob": 1},
			statuses: map[string]string{hash("ann", 1): StatusValidated},
		},
		{
			name: "types and categories outside the table earn the category floor",
			in: Input{
				Traces: []Trace{tr("ann", 1, "synthesis", "rock"), tr("ann", 2, "response", "pebble"), tr("ann", 3, "spec", ""), tr("ann", 4, "knowledge", "boulder")},
				Validations: []Validation{val("bob", hash("ann", 1), "pass"), val("bob", hash("ann", 2), "pass"),
					val("bob", hash("ann", 3), "pass"), val("bob", hash("ann", 4), "pass")},
			},
			signals: map[string]float64{"ann": 4 + 1 + 0.5 + 6, "bob": 4},
		},
		{
			name: "bootstrap sets the starting SIGNAL and tier",
			in: Input{
				Traces:    []Trace{tr("ann", 1, "capability", "pebble")},
				Bootstrap: map[string]float64{"Founder": 60, "big": 200},
			},
			signals: map[string]float64{"Founder": 60, "big": 200, "ann": 0},
			tiers:   map[string]string{"Founder": TierEstablished, "big": TierTrusted, "ann": TierProvisional},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compute(tt.in)
			if !r.Stable {
				t.Errorf("not stable after %d rounds", r.Rounds)
			}
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
				if got := StatusOf(r, h); got != want {
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
			for name, want := range tt.validatedN {
				if got := agentByName(r, name).TracesValidated; got != want {
					t.Errorf("%s: traces validated %d, want %d", name, got, want)
				}
			}
		})
	}
}

func TestContestedTraceIsSettledByEstablishedMajority(t *testing.T) {
	target := tr("ann", 1, "knowledge", "rock")
	tests := []struct {
		name  string
		votes []Validation
		boot  map[string]float64
		want  string
	}{
		{"established passes outvote provisional fails", []Validation{val("est", target.Hash, "pass"), val("p1", target.Hash, "fail"), val("p2", target.Hash, "fail")},
			map[string]float64{"est": 50}, StatusValidated},
		{"established fail outvotes provisional passes", []Validation{val("est", target.Hash, "fail"), val("p1", target.Hash, "pass"), val("p2", target.Hash, "pass")},
			map[string]float64{"est": 120}, StatusFailed},
		{"established split one to one stays contested", []Validation{val("e1", target.Hash, "fail"), val("e2", target.Hash, "pass"), val("p1", target.Hash, "pass")},
			map[string]float64{"e1": 50, "e2": 50}, StatusContested},
		{"trusted counts as established", []Validation{val("tr", target.Hash, "pass"), val("p1", target.Hash, "fail")},
			map[string]float64{"tr": 250}, StatusValidated},
		{"49 (48 bootstrap and 1 validation) is still provisional", []Validation{val("almost", target.Hash, "pass"), val("p1", target.Hash, "fail")},
			map[string]float64{"almost": 48}, StatusContested},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compute(Input{Traces: []Trace{target}, Validations: tt.votes, Bootstrap: tt.boot})
			if got := StatusOf(r, target.Hash); got != tt.want {
				t.Errorf("status %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTiersAndResolutionReachAFixedPoint(t *testing.T) {
	// cy reaches Established only through earnings: four validated
	// capability rocks (40) plus eleven validations authored (51). Once
	// Established, cy's pass settles dan's contested trace, which the
	// first round left contested.
	in := Input{Bootstrap: map[string]float64{"boss": 60}}
	for i := 1; i <= 4; i++ {
		c := tr("cy", i, "capability", "rock")
		in.Traces = append(in.Traces, c)
		in.Validations = append(in.Validations, val("boss", c.Hash, "pass"))
	}
	for i := 1; i <= 10; i++ {
		x := tr("ed", i, "note", "sand")
		in.Traces = append(in.Traces, x)
		in.Validations = append(in.Validations, val("cy", x.Hash, "pass"))
	}
	d := tr("dan", 1, "knowledge", "pebble")
	in.Traces = append(in.Traces, d)
	in.Validations = append(in.Validations, val("cy", d.Hash, "pass"), val("p1", d.Hash, "fail"))

	r := Compute(in)
	if got := agentByName(r, "cy"); got.Signal != 51 || got.Tier != TierEstablished {
		t.Fatalf("cy: %v %s, want 51 Established", got.Signal, got.Tier)
	}
	if got := StatusOf(r, d.Hash); got != StatusValidated {
		t.Errorf("dan's trace: %q, want validated once cy is Established", got)
	}
	if !r.Stable || r.Rounds < 2 {
		t.Errorf("rounds %d stable %v: want a second round that settles", r.Rounds, r.Stable)
	}
}

func TestComputeIsDeterministicAndSorted(t *testing.T) {
	in := Input{
		Traces:      []Trace{tr("b", 1, "knowledge", "rock"), tr("a", 1, "knowledge", "rock"), tr("c", 2, "signal", "pebble"), tr("c", 1, "signal", "pebble")},
		Validations: []Validation{val("c", hash("a", 1), "pass"), val("a", hash("b", 1), "pass"), val("b", hash("c", 1), "fail")},
		Bootstrap:   map[string]float64{"z": 6},
	}
	first := Compute(in)
	rev := in
	rev.Traces = []Trace{in.Traces[3], in.Traces[2], in.Traces[1], in.Traces[0]}
	rev.Validations = []Validation{in.Validations[2], in.Validations[1], in.Validations[0]}
	for i := 0; i < 10; i++ {
		if again := Compute(rev); !reflect.DeepEqual(again, first) {
			t.Fatalf("input order changed the report:\n%+v\n%+v", again, first)
		}
	}
	var names []string
	for _, a := range first.Agents {
		names = append(names, a.Agent)
	}
	if want := []string{"a", "b", "z", "c"}; !reflect.DeepEqual(names, want) {
		t.Errorf("agents in order %v, want %v (signal desc, then name)", names, want)
	}
}

func TestStatusOfUnknownHashIsEmpty(t *testing.T) {
	if got := StatusOf(Compute(Input{}), "sha256:nope"); got != "" {
		t.Errorf("got %q", got)
	}
}
