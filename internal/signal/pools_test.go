package signal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/slowtest"
)

// The tests of this file hold that the pool cache (pools.go) is only an
// optimisation: every status, SIGNAL, tier, standing and jury computed
// with it, kept between runs through its file, is the one computed
// without it, over histories where files arrive late and backdated.

// arrival is one file of a history: the day a node reads it, and what it
// does to the node's input.
type arrival struct {
	day    int
	change func(in *Input)
}

// poolHistory is randomMesh(seed) and admissions (standing admitted day
// after day), dated over about three weeks: trace i submitted on day i/6,
// one in six read up to ten days after its date (backdated), its copies
// listed a few days later, its votes dated from its day to a week later
// (one in ten undated, one in ten backdated before the trace, one in two
// read up to ten days late), disputes dated anywhere in the span, one
// trace in ten withdrawn (its record taken down, which SIGNAL does not
// read) and one in twelve gone from the input a week after it was read.
func poolHistory(seed int64) (Input, []arrival) {
	rng := rand.New(rand.NewSource(seed))
	in, spread := randomMesh(seed), admissions(rng)
	in.Traces = interleave(in.Traces, spread.Traces)
	in.Validations = append(in.Validations, spread.Validations...)
	in.Founders = append(in.Founders, spread.Founders...)
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	on := func(d int) time.Time {
		return start.Add(time.Duration(d)*24*time.Hour + time.Duration(rng.Intn(86400))*time.Second)
	}
	late := func(d, in int) int { return d + rng.Intn(in+1) }
	var evs []arrival
	day := map[manifest.Hash]int{}
	read := map[manifest.Hash]int{}
	for i, t := range in.Traces {
		t := clone(t) // this history's own record, the generated one left as it was
		d := i / 6
		t.Submitted, day[t.Hash], read[t.Hash] = on(d), d, d
		if rng.Intn(6) == 0 {
			read[t.Hash] = late(d, 10)
		}
		evs = append(evs, arrival{read[t.Hash], func(in *Input) { in.Traces = append(in.Traces, t) }})
		h := t.Hash
		switch rng.Intn(12) {
		case 0:
			evs = append(evs, arrival{read[h] + 3, func(in *Input) { takeDown(in, h) }})
		case 1:
			evs = append(evs, arrival{read[h] + 7, func(in *Input) {
				in.Traces = slices.DeleteFunc(in.Traces, func(t *ledger.Trace) bool { return t.Hash == h })
			}})
		}
	}
	for _, c := range in.Copies {
		c := clone(c) // this history's own record, the generated one left as it was
		c.Submitted = on(day[c.Hash] + rng.Intn(4))
		evs = append(evs, arrival{max(int(dayOf(c.Submitted)-dayOf(start)), read[c.Hash]), func(in *Input) { in.Copies = append(in.Copies, c) }})
	}
	for _, v := range in.Validations {
		v := clone(v) // this history's own record, the generated one left as it was
		d := late(day[v.TraceHash], 7)
		switch rng.Intn(10) {
		case 0:
			v.ValidatedAt = time.Time{}
		case 1:
			v.ValidatedAt = on(max(0, d-9))
		default:
			v.ValidatedAt = on(d)
		}
		r := max(d, read[v.TraceHash])
		if rng.Intn(2) == 0 {
			r = late(r, 10)
		}
		evs = append(evs, arrival{r, func(in *Input) { in.Validations = append(in.Validations, v) }})
	}
	for _, ds := range in.Disputes {
		d := rng.Intn(1 + len(in.Traces)/6)
		ds.ObservedAt = on(d)
		evs = append(evs, arrival{late(d, 5), func(in *Input) { in.Disputes = append(in.Disputes, ds) }})
	}
	slices.SortStableFunc(evs, func(x, y arrival) int { return x.day - y.day })
	return Input{Founders: in.Founders}, evs
}

// admissions is a mesh where standing is admitted day after day: two
// founders, and eight agents publishing a capability rock each in turn,
// ten each, every one voted on by the founders (nine in ten passes) and
// by the two agents after its author (seven in ten).
func admissions(rng *rand.Rand) Input {
	in := Input{Founders: founders("f0", "f1")}
	vote := func(v string, h manifest.Hash, pass float64) {
		result := "fail"
		if rng.Float64() < pass {
			result = "pass"
		}
		in.Validations = append(in.Validations, val(v, h, result))
	}
	for s := 1; s <= 10; s++ {
		for i := 0; i < 8; i++ {
			t := tr(fmt.Sprintf("x%d", i), s, "capability", "rock")
			in.Traces = append(in.Traces, t)
			vote("f0", t.Hash, 0.9)
			vote("f1", t.Hash, 0.9)
			vote(fmt.Sprintf("x%d", (i+1)%8), t.Hash, 0.7)
			vote(fmt.Sprintf("x%d", (i+2)%8), t.Hash, 0.7)
		}
	}
	return in
}

// interleave is the traces of a and b, alternating while both last.
func interleave(a, b []*ledger.Trace) []*ledger.Trace {
	out := make([]*ledger.Trace, 0, len(a)+len(b))
	for i := 0; i < max(len(a), len(b)); i++ {
		if i < len(a) {
			out = append(out, a[i])
		}
		if i < len(b) {
			out = append(out, b[i])
		}
	}
	return out
}

// takeDown marks the trace of hash h taken down, as the ledger does when
// its author withdraws it: with a new record in place of the old one.
func takeDown(in *Input, h manifest.Hash) {
	for i, t := range in.Traces {
		if t.Hash == h {
			c := *t
			c.TakenDown = ledger.Withdrawn
			in.Traces[i] = &c
		}
	}
}

// TestPoolsGiveTheReportComputedWithout replays histories day by day, as
// a node's heartbeats would, under every rule set: each day's report and
// juries (every fourth day) computed with the cache, written to its file
// and read back between days, are the ones computed without it, and the cache is used
// (fewer pools computed than epochs asked for).
func TestPoolsGiveTheReportComputedWithout(t *testing.T) {
	seeds := int64(1)
	if slowtest.Enabled() {
		seeds = 2
	}
	for _, rules := range KnownRules() {
		asked, computed := 0, 0
		for seed := int64(1); seed <= seeds; seed++ {
			base, evs := poolHistory(seed)
			base.Rules = rules
			in := base
			var file []byte
			for i := 0; i < len(evs); {
				d := evs[i].day
				for ; i < len(evs) && evs[i].day == d; i++ {
					evs[i].change(&in)
				}
				p, err := ReadPools(file)
				if err != nil {
					p = NewPools() // the first day: no file yet
				}
				got, want := p.Compute(in), Compute(in)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s seed %d day %d: the report with the cache differs:\n got %+v\nwant %+v", rules, seed, d, got, want)
				}
				if d%4 == 0 || i == len(evs) { // drawn from nothing, juries cost what a report does
					checkJuries(t, p, in, fmt.Sprintf("%s seed %d day %d", rules, seed, d))
				}
				file = MarshalPools(p)
				asked += len(newAssigner(in, Rules{}, nil).epochs)
				computed += p.Computed()
			}
		}
		if r, _ := RulesNamed(rules); r.JurySize > 0 && computed >= asked {
			t.Errorf("%s: %d pools computed for %d asked: the cache is not used", rules, computed, asked)
		}
		t.Logf("%s: %d pools computed for %d asked", rules, computed, asked)
	}
}

// checkJuries checks that every trace's jury drawn with the cache is the
// one drawn without it.
func checkJuries(t *testing.T, p *Pools, in Input, what string) {
	t.Helper()
	with, ok := p.Assignments(in)
	without, ok2 := NewAssignments(in)
	if ok != ok2 {
		t.Fatalf("%s: assigns %v with the cache, %v without", what, ok, ok2)
	}
	if !ok {
		return
	}
	for _, tr := range in.Traces {
		if g, w := with.Jury(tr), without.Jury(tr); !slices.Equal(g, w) {
			t.Fatalf("%s: %s's jury with the cache %v, without %v", what, tr.Hash, g, w)
		}
		if g, w := with.Reserve(tr), without.Reserve(tr); !slices.Equal(g, w) {
			t.Fatalf("%s: %s's reserve with the cache %v, without %v", what, tr.Hash, g, w)
		}
		if g, w := with.LateReserve(tr), without.LateReserve(tr); !slices.Equal(g, w) {
			t.Fatalf("%s: %s's late reserve with the cache %v, without %v", what, tr.Hash, g, w)
		}
	}
}

// tenDays is a mesh of fifty agents over March 1–10, 2026, under
// mesh-2026-4: one epoch a day.
func tenDays() Input {
	in := overDays(benchMesh(10, 10), 10)
	in.Rules = RulesMesh2026v4
	return in
}

// keysOf is the key the cache holds each epoch's pool under.
func keysOf(p *Pools) map[int64]poolKey {
	out := map[int64]poolKey{}
	for e, en := range p.entries {
		out[e] = en.key
	}
	return out
}

// TestBackdatedFileInvalidatesThePoolsAfterItsDate: a file dated March 4
// that arrives later changes the pools of March 5 to 10 only, whatever
// its kind; a trace taken down, which SIGNAL does not read, changes none.
func TestBackdatedFileInvalidatesThePoolsAfterItsDate(t *testing.T) {
	march := func(d int) int64 { return EpochOf(time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC)) }
	in := tenDays()
	for name, tc := range map[string]struct {
		change func(in Input) Input
		after  int // the day after which pools change; 0: none
	}{
		"validation": {func(in Input) Input {
			in.Validations = append(slices.Clone(in.Validations), at(val("a005", in.Traces[2].Hash, "fail"), 4))
			return in
		}, 4},
		"trace": {func(in Input) Input {
			in.Traces = append(slices.Clone(in.Traces), dated(tr("a007", 99, "knowledge", "rock"), 4))
			return in
		}, 4},
		"dispute": {func(in Input) Input {
			d := disp("a001", "a002", 5)
			d.ObservedAt = time.Date(2026, 3, 4, 23, 59, 59, 0, time.UTC)
			in.Disputes = append(slices.Clone(in.Disputes), d)
			return in
		}, 4},
		"validation before 1970": {func(in Input) Input {
			v := val("a005", in.Traces[2].Hash, "fail")
			v.ValidatedAt = time.Date(1969, 12, 31, 23, 0, 0, 0, time.UTC)
			in.Validations = append(slices.Clone(in.Validations), v)
			return in
		}, -1},
		"take-down": {func(in Input) Input {
			in.Traces = slices.Clone(in.Traces)
			c := *in.Traces[3]
			c.TakenDown = ledger.Withdrawn
			in.Traces[3] = &c
			return in
		}, 0},
	} {
		t.Run(name, func(t *testing.T) {
			p := NewPools()
			p.Compute(in)
			before := keysOf(p)
			p, err := ReadPools(MarshalPools(p))
			if err != nil {
				t.Fatal(err)
			}
			changed := tc.change(in)
			if !reflect.DeepEqual(p.Compute(changed), Compute(changed)) {
				t.Fatal("the report with the cache differs")
			}
			after := keysOf(p)
			want := 0
			for d := 1; d <= 10; d++ {
				e := march(d)
				invalid := tc.after != 0 && d > tc.after
				if invalid {
					want++
				}
				if (before[e] != after[e]) != invalid {
					t.Errorf("March %d: key changed %v, want %v", d, before[e] != after[e], invalid)
				}
			}
			if got := p.Computed(); got != want {
				t.Errorf("computed %d pools, want %d", got, want)
			}
		})
	}
}

// TestDamagedPoolsFileIsRefused: a cache file damaged in any way, or of
// another version, is an error (the node then starts from an empty cache
// and rewrites it), never pools taken on trust; a whole one reads back to
// the same bytes.
func TestDamagedPoolsFileIsRefused(t *testing.T) {
	p := NewPools()
	p.Compute(tenDays())
	good := MarshalPools(p)
	if len(good) == 0 {
		t.Fatal("no pools written")
	}
	back, err := ReadPools(good)
	if err != nil {
		t.Fatal(err)
	}
	back.Compute(tenDays())
	if again := MarshalPools(back); !bytes.Equal(again, good) {
		t.Fatalf("read back and used, the pools write other bytes:\n%s\nwant\n%s", again, good)
	}
	if back.Computed() != 0 {
		t.Errorf("read back, the cache computed %d pools", back.Computed())
	}
	// A file whose sum was recomputed after an edit is refused when the
	// edit makes no pool: these are the checks past the sum.
	resum := func(edit func(f *poolsFile)) []byte {
		f := decodePools(t, good)
		edit(&f)
		f.Sum = epochsSum(f.Epochs)
		return encodePools(t, f)
	}
	for name, data := range map[string][]byte{
		"empty":               {},
		"truncated":           good[:len(good)/2],
		"a name changed":      bytes.Replace(good, []byte(`"a000"`), []byte(`"a00O"`), 1),
		"other version":       bytes.Replace(good, []byte(`"version": 1`), []byte(`"version": 2`), 1),
		"unknown field":       bytes.Replace(good, []byte(`"version"`), []byte(`"extra": 1, "version"`), 1),
		"drops a stranger":    resum(func(f *poolsFile) { f.Epochs[1].Drop = append(f.Epochs[1].Drop, "url https://nobody.example/") }),
		"adds a member twice": resum(func(f *poolsFile) { f.Epochs[1].Add = append(f.Epochs[1].Add, f.Epochs[0].Add[0]) }),
		"short key":           resum(func(f *poolsFile) { f.Epochs[0].Key = "abcd" }),
		"epochs out of order": resum(func(f *poolsFile) { f.Epochs[1].Epoch = f.Epochs[0].Epoch }),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ReadPools(data); err == nil {
				t.Fatal("read without an error")
			}
		})
	}
}

// TestPoolsFileKeepsWhoIsAway: under mesh-2026-5 a pool's members away
// are written (away) and read back, so that the juries drawn from the
// file are the ones drawn without it; a file marking away a member it
// does not add is refused.
func TestPoolsFileKeepsWhoIsAway(t *testing.T) {
	names := []string{"f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8"}
	in, _ := juriedDays(RulesMesh2026v5, names, 5, 6, func(n string, _ int) bool { return n != "f8" })
	p := NewPools()
	p.Compute(in)
	data := MarshalPools(p)
	f := decodePools(t, data)
	away := 0
	for _, e := range f.Epochs {
		away += len(e.Away)
	}
	if away == 0 {
		t.Fatalf("no member written away:\n%s", data)
	}
	back, err := ReadPools(data)
	if err != nil {
		t.Fatal(err)
	}
	checkJuries(t, back, in, "read back")
	if back.Computed() != 0 {
		t.Errorf("read back, the cache computed %d pools", back.Computed())
	}
	f.Epochs[0].Away = append(f.Epochs[0].Away, "url https://nobody.example/")
	f.Sum = epochsSum(f.Epochs)
	if _, err := ReadPools(encodePools(t, f)); err == nil {
		t.Error("a file marking away a member it does not add was read")
	}
}

func decodePools(t *testing.T, data []byte) poolsFile {
	t.Helper()
	var f poolsFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func encodePools(t *testing.T, f poolsFile) []byte {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPoolsOnTheCorpusGiveTheReportComputedWithout: the real snapshot's
// traces, dated by their MANIFEST rows, and its votes, dated up to four
// days after their traces, under mesh-2026-4 with two of its busiest agents
// as founders, read as a node would over its days (every third
// day): with the cache kept between them, each report is the one computed
// without it.
func TestPoolsOnTheCorpusGiveTheReportComputedWithout(t *testing.T) {
	all := corpusInput(t)
	submitted := corpusSubmitted(t)
	url := func(agent string) string { return "https://mycelnet.ai/basecamp/agents-hosted/" + agent + "/" }
	var evs []arrival
	first := time.Time{}
	for _, s := range submitted {
		if first.IsZero() || (!s.IsZero() && s.Before(first)) {
			first = s
		}
	}
	dayOfRun := func(at time.Time) int { return max(0, int(dayOf(at)-dayOf(first))) }
	for _, tr := range all.Traces {
		tr := clone(tr) // this history's own record, the generated one left as it was
		tr.AgentURL, tr.Submitted = url(tr.Agent), submitted[tr.Hash]
		evs = append(evs, arrival{dayOfRun(tr.Submitted), func(in *Input) { in.Traces = append(in.Traces, tr) }})
	}
	for i, v := range all.Validations {
		v := clone(v) // this history's own record, the generated one left as it was
		v.ValidatorURL, v.ValidatedAt = url(v.Validator), submitted[v.TraceHash].Add(time.Duration(i%5)*24*time.Hour)
		evs = append(evs, arrival{dayOfRun(v.ValidatedAt), func(in *Input) { in.Validations = append(in.Validations, v) }})
	}
	slices.SortStableFunc(evs, func(x, y arrival) int { return x.day - y.day })
	in := Input{Rules: RulesMesh2026v4, Founders: []Founder{{Name: "bottymcbotface", URL: url("bottymcbotface")}, {Name: "czero", URL: url("czero")}}}
	var file []byte
	runs, computed := 0, 0
	for i := 0; i < len(evs); {
		until := evs[i].day + 3
		for ; i < len(evs) && evs[i].day < until; i++ {
			evs[i].change(&in)
		}
		p, err := ReadPools(file)
		if err != nil {
			p = NewPools()
		}
		if got, want := p.Compute(in), Compute(in); !reflect.DeepEqual(got, want) {
			t.Fatalf("until day %d: the report with the cache differs", until)
		}
		file = MarshalPools(p)
		runs++
		computed += p.Computed()
	}
	standing := 0
	for _, a := range Compute(in).Agents {
		if a.Standing {
			standing++
		}
	}
	t.Logf("%d runs over %d files, %d pools computed with the cache; %d agents with standing", runs, len(evs), computed, standing)
}
