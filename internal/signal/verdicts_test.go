package signal

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/verdict"
)

// filed is tr with the file name the agent gave it.
func filed(agent string, seq int, file string) *ledger.Trace {
	t := tr(agent, seq, "knowledge", "rock")
	t.File = file
	return t
}

// judging is a validation trace by agent that gives verdicts.
func judging(agent string, seq int, vs ...ledger.Verdict) *ledger.Trace {
	t := tr(agent, seq, "validation", "pebble")
	t.File, t.Verdicts = "traces/900-validation.md", vs
	return t
}

func TestVerdictTracesVoteWhereTheirTargetIsOneTrace(t *testing.T) {
	in := Input{
		Traces: []*ledger.Trace{
			filed("ann", 1, "traces/001-a.md"),
			// ann numbers her files one below her seqs from here on:
			// ann/30 is seq 30 or file 030 (seq 31), two traces.
			filed("ann", 30, "traces/029-b.md"), filed("ann", 31, "traces/030-c.md"),
			filed("ann", 5, "traces/005-d.md"),
			judging("bob", 9,
				ledger.Verdict{Agent: "ann", Seq: 1, Result: string(verdict.Valid)},
				ledger.Verdict{Agent: "ann", Seq: 30, Result: string(verdict.Valid)},  // two traces: no vote
				ledger.Verdict{Agent: "ann", Seq: 5, Result: string(verdict.Partial)}, // neither pass nor fail
				ledger.Verdict{Agent: "ann", Seq: 77, Result: string(verdict.Valid)},  // no such trace
				ledger.Verdict{Agent: "bob", Seq: 9, Result: string(verdict.Valid)},   // its own trace
				ledger.Verdict{Agent: "cy", Seq: 2, Result: string(verdict.Invalid)}),
			filed("cy", 2, "traces/cy-two.md"),
		},
		Founders: founders("bob"),
	}
	r := Compute(in)
	want := map[manifest.Hash]manifest.Status{
		hash("ann", 1): manifest.StatusValidated, hash("ann", 30): manifest.StatusPending, hash("ann", 31): manifest.StatusPending,
		hash("ann", 5): manifest.StatusPending, hash("bob", 9): manifest.StatusPending, hash("cy", 2): manifest.StatusFailed,
	}
	for _, tr := range r.Traces {
		if w, ok := want[tr.Hash]; ok && tr.Status != w {
			t.Errorf("%s/%d: %s, want %s", tr.Agent, tr.Seq, tr.Status, w)
		}
	}
	if bob := agentByName(r, "bob"); bob.ValidationsAuthored != 2 || bob.Signal != 52 {
		t.Errorf("bob: %d votes counted, SIGNAL %v; want 2 and 52", bob.ValidationsAuthored, bob.Signal)
	}
	wantTrust := []Edge{
		{Validator: "bob", ValidatorURL: "https://bob.example/", Agent: "ann", AgentURL: "https://ann.example/", Pass: 1, Counted: 1, Verdicts: 1},
		{Validator: "bob", ValidatorURL: "https://bob.example/", Agent: "cy", AgentURL: "https://cy.example/", Fail: 1, Counted: 1, Verdicts: 1},
	}
	if !reflect.DeepEqual(r.Trust, wantTrust) {
		t.Errorf("trust = %+v\nwant %+v", r.Trust, wantTrust)
	}
}

func TestAValidationFileAndAVerdictOnOneTraceAreOneVote(t *testing.T) {
	j := judging("bob", 9, ledger.Verdict{Agent: "ann", Seq: 1, Result: string(verdict.Invalid)})
	j.Submitted = at(&ledger.Validation{}, 1).ValidatedAt
	in := Input{
		Traces:      []*ledger.Trace{filed("ann", 1, "traces/001-a.md"), j},
		Validations: []*ledger.Validation{at(val("bob", hash("ann", 1), "pass"), 2)},
		Founders:    founders("bob"),
	}
	r := Compute(in)
	if len(r.Trust) != 1 || r.Trust[0].Pass != 1 || r.Trust[0].Fail != 0 {
		t.Errorf("trust = %+v, want the one later vote, a pass", r.Trust)
	}
}

func TestFileNumber(t *testing.T) {
	tests := []struct {
		file string
		n    int
		ok   bool
	}{
		{"traces/014-trace.md", 14, true}, {"traces/173_response.md", 173, true}, {"traces/7.md", 7, true},
		{"traces/capability-scout.md", 0, false}, {"traces/2026-03-01-notes.md", 2026, true}, {"traces/000-x.md", 0, false},
		{"traces/12345678901-x.md", 0, false}, {"", 0, false},
	}
	for _, tt := range tests {
		if n, ok := fileNumber(tt.file); n != tt.n || ok != tt.ok {
			t.Errorf("fileNumber(%q) = %d, %v; want %d, %v", tt.file, n, ok, tt.n, tt.ok)
		}
	}
}

// TestCorpusVerdictTracesDrawTheMesh: the real agents' verdict traces
// give a trust graph between the agents themselves, not a star around
// one node, and only verdicts whose target is one trace become votes.
func TestCorpusVerdictTracesDrawTheMesh(t *testing.T) {
	dir := corpustest.Dir(t)
	in := corpusInput(t)
	in.Validations = nil
	for i, tr := range in.Traces {
		file := filepath.Join(dir, "agents-hosted", tr.Agent, filepath.FromSlash(tr.File))
		raw, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		in.Traces[i].Verdicts = ledger.VerdictsOf(raw, tr.Agent)
	}
	r := Compute(in)
	votes, validators, judged := 0, map[string]bool{}, map[string]bool{}
	for _, e := range r.Trust {
		if e.Verdicts != e.Pass+e.Fail || e.Validator == e.Agent {
			t.Errorf("edge %+v: every vote here is a verdict of another agent", e)
		}
		votes += e.Pass + e.Fail
		validators[e.Validator], judged[e.Agent] = true, true
	}
	if votes < 15 || len(validators) < 5 || len(judged) < 5 {
		t.Errorf("%d verdict votes from %d validators on %d agents; want at least 15, 5 and 5", votes, len(validators), len(judged))
	}
	names := make([]string, 0, len(r.Trust))
	for _, e := range r.Trust {
		names = append(names, e.Validator+"→"+e.Agent)
	}
	sort.Strings(names)
	t.Logf("%d votes in %d edges: %v", votes, len(r.Trust), names)
}
