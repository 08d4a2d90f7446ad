package signal

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/slowtest"
)

// extendCase is one generated history under one rule set, with the
// agent whose new traces are added (an agent of the report, "ours") and
// the records added.
type extendCase struct {
	name  string
	in    Input
	rules Rules
	ours  Agent
	added []*ledger.Trace
}

// extendCases are timedHistory's histories under every rule set, each
// with one to three new traces of one of its random agents, the seqs
// after its newest: under rules where mismatches cost standing the
// disputes of that agent are left out, so that the rule holds but for
// juries.
func extendCases(t *testing.T) []extendCase {
	t.Helper()
	seeds := int64(8)
	if slowtest.Enabled() {
		seeds = 100
	}
	var out []extendCase
	for seed := int64(1); seed <= seeds; seed++ {
		base, evs := timedHistory(seed)
		full := recordAll(evs)
		rng := rand.New(rand.NewSource(seed))
		for _, name := range KnownRules() {
			rules, _ := RulesNamed(name)
			in := inputFrom(full, base, name)
			ours := randomAgent(rng, Compute(in))
			if rules.LoseAtMismatches > 0 {
				in.Disputes = slices.DeleteFunc(slices.Clone(in.Disputes), func(d ledger.Dispute) bool {
					return disputesAuthor([]ledger.Dispute{d}, &ledger.Trace{Agent: ours.Agent, AgentURL: ours.URL})
				})
			}
			c := extendCase{name: fmt.Sprintf("seed %d, %s, %s", seed, name, ours.Agent), in: in, rules: rules, ours: ours}
			for k := 1 + rng.Intn(3); k > 0; k-- {
				c.added = append(c.added, newTraceOf(ours, newestSeq(in, ours)+1+rng.Intn(70), rng))
			}
			out = append(out, c)
		}
	}
	return out
}

// randomAgent is one of r's agents of randomMesh (named rNN).
func randomAgent(rng *rand.Rand, r Report) Agent {
	var as []Agent
	for _, a := range r.Agents {
		if strings.HasPrefix(a.Agent, "r") {
			as = append(as, a)
		}
	}
	return as[rng.Intn(len(as))]
}

// newestSeq is the highest seq of a listing of in by a.
func newestSeq(in Input, a Agent) int {
	n := 0
	for _, l := range [][]*ledger.Trace{in.Traces, in.Copies} {
		for _, t := range l {
			if agentKey(t.Agent, t.AgentURL) == agentKey(a.Agent, a.URL) {
				n = max(n, int(t.Seq))
			}
		}
	}
	return n
}

// newTraceOf is a new trace of a's at seq, its file numbered so, with a
// hash no record has.
func newTraceOf(a Agent, seq int, rng *rand.Rand) *ledger.Trace {
	types := []string{"capability", "knowledge", "signal", "task", "note"}
	file := fmt.Sprintf("traces/%03d-new.md", seq)
	return &ledger.Trace{Agent: a.Agent, AgentURL: a.URL, Hash: manifest.Hash(fmt.Sprintf("sha256:new-%s-%d-%d", a.Agent, seq, rng.Int())),
		URL: a.URL + file, File: file, Seq: manifest.Seq(seq), Type: types[rng.Intn(len(types))], Category: "rock",
		Submitted: historyStart.Add(time.Duration(600+rng.Intn(30)) * 24 * time.Hour)}
}

// withTraces is in with added among its traces, as FromRows gathers our
// rows with the new ones.
func withTraces(in Input, added []*ledger.Trace) Input {
	in.Traces = append(slices.Clone(added), in.Traces...)
	return in
}

// keptFor is a heartbeat's keep for ours: its listings by URL, others by
// keptBy's hash rule.
func keptFor(ours Agent) func(*ledger.Trace) bool {
	return func(t *ledger.Trace) bool {
		return strings.HasPrefix(t.URL, ours.URL) || t.Hash[len(t.Hash)-1]%3 == 0
	}
}

// TestExtendIsComputingAgainWhereTheRuleHolds: over generated histories
// and every rule set, new traces of an agent the report holds, whose
// hashes no record names, no verdict naming their seqs nor (where
// mismatches cost standing) a dispute naming their agent: the report
// Extend makes from the one without them is exactly the one computed with
// them, every agent, trust edge, round and kept result, keeping all or
// some results. Under rules that assign juries it refuses.
func TestExtendIsComputingAgainWhereTheRuleHolds(t *testing.T) {
	extended := 0
	for _, c := range extendCases(t) {
		for _, keep := range []func(*ledger.Trace) bool{nil, keptFor(c.ours)} {
			r := NewPools().ComputeKeeping(c.in, keep)
			got, ok := Extend(c.in, r, c.added, keep)
			if c.rules.JurySize > 0 {
				if ok {
					t.Fatalf("%s: Extend under a rule set that assigns juries", c.name)
				}
				continue
			}
			if !ok {
				t.Fatalf("%s: Extend refused new traces the rule allows", c.name)
			}
			want := NewPools().ComputeKeeping(withTraces(c.in, c.added), keep)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: the extended report is not the one computed again:\n got %+v\nwant %+v", c.name, got, want)
			}
			extended++
		}
	}
	if extended == 0 {
		t.Fatal("no report extended: the histories test nothing")
	}
}

// breach is a way of adding traces that breaks one clause of Extend's
// rule, making the case's input and added records; it reports false when
// the case cannot break it (the clause does not apply under its rules).
type breach func(c *extendCase) bool

// juries names the breach of the first clause: the others are broken
// only under rule sets that assign no juries, so that each is the only
// clause broken.
const juries = "a rule set that assigns juries"

// breaches are the clauses of Extend's rule, each broken.
var breaches = map[string]breach{
	juries: func(c *extendCase) bool { return c.rules.JurySize > 0 },
	"a vote on a new trace": func(c *extendCase) bool {
		f := c.in.Founders[0]
		c.in.Validations = append(slices.Clone(c.in.Validations), &ledger.Validation{Validator: f.Name, ValidatorURL: f.URL,
			TraceHash: c.added[0].Hash, Result: "pass", ValidatedAt: c.added[0].Submitted, SourceHash: "sha256:vote-on-new"})
		return true
	},
	"another's listing of a new trace's bytes": func(c *extendCase) bool {
		other := *c.in.Traces[len(c.in.Traces)-1]
		if agentKey(other.Agent, other.AgentURL) == agentKey(c.ours.Agent, c.ours.URL) {
			return false
		}
		other.Hash = c.added[0].Hash
		c.in.Traces = append(slices.Clone(c.in.Traces), &other)
		return true
	},
	"a verdict naming a new trace's seq": func(c *extendCase) bool {
		f := c.in.Founders[0]
		v := &ledger.Trace{Agent: f.Name, AgentURL: f.URL, Hash: "sha256:verdict-of-new", Seq: 9000, Type: "verdict",
			Verdicts: []ledger.Verdict{{Agent: strings.ToLower(c.ours.Agent), Seq: int(c.added[0].Seq), Result: "valid"}}}
		c.in.Traces = append(slices.Clone(c.in.Traces), v)
		return true
	},
	"a new trace with a verdict": func(c *extendCase) bool {
		for _, t := range c.in.Traces {
			if agentKey(t.Agent, t.AgentURL) != agentKey(c.ours.Agent, c.ours.URL) {
				c.added[0].Verdicts = []ledger.Verdict{{Agent: strings.ToLower(strings.TrimSpace(t.Agent)), Seq: int(t.Seq), Result: "invalid"}}
				return true
			}
		}
		return false
	},
	"an author the report does not hold": func(c *extendCase) bool {
		for _, t := range c.added {
			t.Agent, t.AgentURL = "newcomer", "https://newcomer.example/"
		}
		return true
	},
	"an author under another spelling": func(c *extendCase) bool {
		for _, t := range c.added {
			t.Agent = strings.ToUpper(c.ours.Agent)
			t.Hash = "sha256:0" + t.Hash[len("sha256:"):] // first of its author's listings
		}
		return true
	},
	"a dispute of the author moved out of the window": func(c *extendCase) bool {
		if c.rules.LoseAtMismatches == 0 {
			return false
		}
		newest := newestSeq(c.in, c.ours)
		var seqs []int
		for s := newest; s > newest-3; s-- {
			seqs = append(seqs, s)
		}
		fs := c.in.Founders
		for _, s := range seqs {
			for _, f := range fs[:2] {
				d := disp(f.Name, c.ours.Agent, s)
				d.ReporterURL, d.AgentURL = f.URL, c.ours.URL
				c.in.Disputes = append(c.in.Disputes, d)
			}
		}
		for _, t := range c.added {
			t.Seq = manifest.Seq(newest + MismatchWindow + 10)
		}
		return true
	},
}

// mirrored is c's input with a mirror listing each trace at its seq under
// its author's name, from another URL: where copies are judged each is a
// result of its own, tied with the author's but for its URL.
func mirrored(in Input) Input {
	copies := slices.Clone(in.Copies)
	for _, t := range in.Traces {
		m := *t
		m.AgentURL = "https://mirror.example/" + t.Agent + "/"
		m.URL = m.AgentURL + "traces/copy.md"
		copies = append(copies, &m)
	}
	in.Copies = copies
	return in
}

// TestExtendKeepsTiedListingsInTheirOrder: two listings of one hash at
// one seq under one name tie on everything but their URL, which the
// report's order reads last, so new traces of ours do not move them and
// Extend needs no clause about them (docs/decisions.md, "The order of
// SIGNAL's results"). Sorting without the URL, results tied so came out
// in another order once the listings were more.
func TestExtendKeepsTiedListingsInTheirOrder(t *testing.T) {
	extended := 0
	for _, c := range extendCases(t) {
		if c.rules.JurySize > 0 || !c.rules.CopiesEarnNothing {
			continue
		}
		in := mirrored(c.in)
		r := NewPools().Compute(in)
		got, ok := Extend(in, r, c.added, nil)
		if !ok {
			t.Fatalf("%s: Extend refused new traces beside tied listings", c.name)
		}
		if want := NewPools().Compute(withTraces(in, c.added)); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the extended report is not the one computed again beside tied listings", c.name)
		}
		extended++
	}
	if extended == 0 {
		t.Fatal("no history judges copies: the test tests nothing")
	}
}

// TestExtendRefusesEveryBreachOfItsRuleAndEachClauseIsNeeded: each clause
// of Extend's rule broken over the generated histories, Extend refuses
// to extend, and, for each clause, at least one history where the report
// extended regardless (withUnvoted) is not the one computed again: no
// clause is there for nothing.
func TestExtendRefusesEveryBreachOfItsRuleAndEachClauseIsNeeded(t *testing.T) {
	for name, br := range breaches {
		t.Run(name, func(t *testing.T) {
			wrong := 0
			for _, c := range extendCases(t) {
				c.added = cloneTraces(c.added)
				if (c.rules.JurySize > 0 && name != juries) || !br(&c) {
					continue
				}
				r := NewPools().Compute(c.in)
				if _, ok := Extend(c.in, r, c.added, nil); ok {
					t.Fatalf("%s: Extend extended the report", c.name)
				}
				if !reflect.DeepEqual(withUnvoted(r, c.added, nil), NewPools().Compute(withTraces(c.in, c.added))) {
					wrong++
				}
			}
			if wrong == 0 {
				t.Errorf("extended regardless, every report is the one computed again: the clause is not needed")
			}
		})
	}
}

// cloneTraces copies each record, for a breach to change.
func cloneTraces(ts []*ledger.Trace) []*ledger.Trace {
	out := make([]*ledger.Trace, len(ts))
	for i, t := range ts {
		c := *t
		out[i] = &c
	}
	return out
}

// TestAddedTracesAreOurNewTraceRowsWhenNothingElseOfOursChanged: the
// records AddedTraces gives are those of the trace rows the later rows add
// (a validation row adds none), and it refuses when a trace row of before
// is changed, dropped or listed twice: FromRows over the later rows would
// then be more than the earlier input with traces added.
func TestAddedTracesAreOurNewTraceRowsWhenNothingElseOfOursChanged(t *testing.T) {
	snap, err := node.Open(testNode(t), node.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := snap.Rows()
	fresh := manifest.Entry{Seq: 2, Hash: manifest.Hash(h("c")), File: "traces/new.md", Type: "knowledge", Submitted: historyStart}
	val := manifest.Entry{Seq: 3, Hash: manifest.Hash(h("d")), File: "validations/val-dddddddddddd.md", Type: "validation"}
	retyped := slices.Clone(rows)
	retyped[0].Type = "knowledge"
	restatused := slices.Clone(rows)
	restatused[0].Status = manifest.StatusValidated
	for _, c := range []struct {
		name  string
		after []manifest.Entry
		added []manifest.Hash
		ok    bool
	}{
		{"the same rows", rows, nil, true},
		{"a status changed", restatused, nil, true},
		{"a trace added", append(slices.Clone(rows), fresh), []manifest.Hash{fresh.Hash}, true},
		{"a validation added", append(slices.Clone(rows), val), nil, true},
		{"a trace retyped", append(retyped, fresh), nil, false},
		{"a trace dropped", []manifest.Entry{fresh}, nil, false},
		{"a trace listed twice", append(slices.Clone(rows), rows[0]), nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			added, ok := AddedTraces(snap, rows, c.after, "jolt", "https://jolt.example/")
			var hashes []manifest.Hash
			for _, a := range added {
				hashes = append(hashes, a.Hash)
				if a.Agent != "jolt" || a.AgentURL != "https://jolt.example/" || a.URL != "https://jolt.example/"+a.File {
					t.Errorf("added %+v, want a record of jolt's", a)
				}
			}
			if ok != c.ok || (ok && !slices.Equal(hashes, c.added)) {
				t.Errorf("added %v, ok %v; want %v, %v", hashes, ok, c.added, c.ok)
			}
		})
	}
}
