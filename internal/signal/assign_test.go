package signal

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// dated is a copy of t submitted at noon day days into March 2026.
func dated(t *ledger.Trace, day int) *ledger.Trace {
	c := *t
	c.Submitted = time.Date(2026, 3, day, 12, 0, 0, 0, time.UTC)
	return &c
}

func traceResult(r Report, h manifest.Hash) TraceResult {
	for _, t := range r.Traces {
		if t.Hash == h {
			return t
		}
	}
	return TraceResult{}
}

// byWeight is names sorted as the jury rule ranks them for h: the hex of
// sha256(h + "\n" + name), highest first, computed here independently.
func byWeight(h manifest.Hash, names []string) []string {
	w := func(n string) string {
		s := sha256.Sum256([]byte(string(h) + "\n" + n))
		return hex.EncodeToString(s[:])
	}
	out := slices.Clone(names)
	sort.Slice(out, func(i, j int) bool { return w(out[i]) > w(out[j]) })
	return out
}

func TestTheJuryIsTheKHighestRendezvousWeightsWithoutTheAuthor(t *testing.T) {
	names := []string{"f1", "f2", "f3", "f4", "f5", "f6", "f7", "ann"}
	in := Input{Rules: RulesMesh2026v4, Founders: founders(names...)}
	for seq := 1; seq <= 20; seq++ {
		in.Traces = append(in.Traces, dated(tr("ann", seq, "knowledge", "pebble"), 10))
	}
	r := Compute(in)
	as, ok := NewAssignments(in)
	if !ok {
		t.Fatal("mesh-2026-4 assigns nothing")
	}
	for _, tt := range in.Traces {
		want := byWeight(tt.Hash, names[:7])[:JurySize]
		if got := traceResult(r, tt.Hash).Jury; !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: jury %v, want %v", tt.Hash, got, want)
		}
		if got := as.Jury(tt); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Assignments.Jury %v, want %v", tt.Hash, got, want)
		}
		if !as.AssignedTo(tt, "https://"+want[0]+".example/") || as.AssignedTo(tt, "https://ann.example/") {
			t.Fatalf("%s: AssignedTo disagrees with the jury", tt.Hash)
		}
	}

	t.Run("fewer validators than k: all of them", func(t *testing.T) {
		in := Input{Rules: RulesMesh2026v4, Founders: founders("f1", "f2", "ann"), Traces: []*ledger.Trace{dated(tr("ann", 1, "knowledge", "pebble"), 10)}}
		got := Compute(in).Traces[0].Jury
		if want := byWeight(hash("ann", 1), []string{"f1", "f2"}); !reflect.DeepEqual(got, want) {
			t.Fatalf("jury %v, want %v", got, want)
		}
	})
	t.Run("earlier rule sets draw no jury", func(t *testing.T) {
		in.Rules = RulesMesh2026v3
		if j := Compute(in).Traces[0].Jury; j != nil {
			t.Fatalf("jury %v under %s", j, in.Rules)
		}
		if _, ok := NewAssignments(in); ok {
			t.Fatal("NewAssignments under mesh-2026-3")
		}
	})
}

// juryMesh is seven founders and ann's trace on March 10: the two of
// them not on its jury fail it, and only two jurors pass it.
func juryMesh(rules string) (Input, []string) {
	names := []string{"f1", "f2", "f3", "f4", "f5", "f6", "f7"}
	t := dated(tr("ann", 1, "knowledge", "pebble"), 10)
	order := byWeight(t.Hash, names)
	in := Input{Rules: rules, Founders: founders(names...), Traces: []*ledger.Trace{t}}
	for _, n := range order[:2] {
		in.Validations = append(in.Validations, at(val(n, t.Hash, "pass"), 10))
	}
	for _, n := range order[JurySize:] {
		in.Validations = append(in.Validations, at(val(n, t.Hash, "fail"), 10))
	}
	return in, order
}

func TestUnderMesh2026v4OnlyTheJurySettlesAndEarns(t *testing.T) {
	in, order := juryMesh(RulesMesh2026v4)
	r := Compute(in)
	got := r.Traces[0]
	if got.Status != manifest.StatusValidated || got.Passing != 2 || got.Seen != 2 || got.Unassigned != 2 {
		t.Fatalf("under mesh-2026-4: %+v, want validated 2 of 2 with 2 unassigned", got)
	}
	for _, n := range order[:2] {
		if a := agentByName(r, n); a.Signal != FounderPoints+ValidationPoints || a.ValidationsAuthored != 1 {
			t.Fatalf("juror %s: %+v, want its agreeing pass to earn 1", n, a)
		}
	}
	for _, n := range order[JurySize:] {
		if a := agentByName(r, n); a.Signal != FounderPoints || a.ValidationsAuthored != 0 || a.ValidationsUnassigned != 1 {
			t.Fatalf("outsider %s: %+v, want its vote unassigned, earning nothing", n, a)
		}
	}

	in.Rules = RulesMesh2026v3
	if got := Compute(in).Traces[0]; got.Status != manifest.StatusContested || got.Seen != 4 || got.Unassigned != 0 {
		t.Fatalf("under mesh-2026-3: %+v, want the same votes contested 2 to 2", got)
	}
}

// admittedOn is two founders and x, whose five capability rocks of March
// 1 both founders pass on day passedOn; y publishes a trace on March 1
// and one on March 2, which x and the founders pass on March 2.
func admittedOn(passedOn int) Input {
	in := Input{Rules: RulesMesh2026v4, Founders: founders("f1", "f2")}
	for seq := 1; seq <= 5; seq++ {
		x := dated(tr("x", seq, "capability", "rock"), 1)
		in.Traces = append(in.Traces, x)
		in.Validations = append(in.Validations, at(val("f1", x.Hash, "pass"), passedOn), at(val("f2", x.Hash, "pass"), passedOn))
	}
	for day := 1; day <= 2; day++ {
		y := dated(tr("y", day, "knowledge", "pebble"), day)
		in.Traces = append(in.Traces, y)
		for _, v := range []string{"f1", "f2", "x"} {
			in.Validations = append(in.Validations, at(val(v, y.Hash, "pass"), 2))
		}
	}
	return in
}

func TestTheJuryIsDrawnFromStandingAsOfTheEpochsStart(t *testing.T) {
	r := Compute(admittedOn(1))
	if x := agentByName(r, "x"); !x.Standing {
		t.Fatalf("x: %+v, want standing", x)
	}
	day1, day2 := traceResult(r, hash("y", 1)), traceResult(r, hash("y", 2))
	if slices.Contains(day1.Jury, "x") || day1.Seen != 2 || day1.Unassigned != 1 {
		t.Fatalf("y's trace of March 1: %+v, want x off the jury (admitted on files of March 1, not before it)", day1)
	}
	if !slices.Contains(day2.Jury, "x") || day2.Seen != 3 || day2.Unassigned != 0 {
		t.Fatalf("y's trace of March 2: %+v, want x on the jury (admitted by files dated March 1)", day2)
	}
	if x := agentByName(r, "x"); x.ValidationsAuthored != 1 || x.ValidationsUnassigned != 1 {
		t.Fatalf("x: %+v, want one assigned and one unassigned validation", x)
	}

	// Passed on March 2, x's traces admit it only from March 3 on.
	r = Compute(admittedOn(2))
	if day2 := traceResult(r, hash("y", 2)); slices.Contains(day2.Jury, "x") || day2.Unassigned != 1 {
		t.Fatalf("y's trace of March 2: %+v, want x off the jury when its admitting passes are dated March 2", day2)
	}
}

// TestAssignmentCoversEveryTraceAndSharesTheLoad is the property of issue
// 25: for random pools, every trace gets a jury of min(k, validators other
// than its author) (so at least three whenever three can judge it), drawn
// from the pool, and each validator's load is about k × traces ÷
// validators.
func TestAssignmentCoversEveryTraceAndSharesTheLoad(t *testing.T) {
	rng := rand.New(rand.NewSource(25))
	for round := 0; round < 12; round++ {
		n := 1 + rng.Intn(60)
		pool := make([]member, n)
		for i := range pool {
			pool[i] = member{key: agentKey("", fmt.Sprintf("https://v%03d.example/", i)), name: fmt.Sprintf("v%03d", i)}
		}
		traces := 2000
		load := map[string]int{}
		for i := 0; i < traces; i++ {
			h := manifest.Hash(fmt.Sprintf("sha256:%064x", rng.Uint64()))
			author, eligible := pool[rng.Intn(n)].key, n-1
			if rng.Intn(2) == 0 {
				author, eligible = agentKey("", "https://outsider.example/"), n
			}
			j := jury(h, author, pool, JurySize)
			if len(j) != min(JurySize, eligible) || len(j) < min(3, eligible) {
				t.Fatalf("pool %d: jury of %d, want %d", n, len(j), min(JurySize, eligible))
			}
			for _, m := range j {
				if m.key == author || !slices.Contains(pool, m) {
					t.Fatalf("pool %d: juror %s is the author or outside the pool", n, m.key)
				}
				load[m.key]++
			}
		}
		if n < 2*JurySize {
			continue // nearly everyone judges nearly everything
		}
		mean := float64(JurySize*traces) / float64(n)
		for _, m := range pool {
			if l := float64(load[m.key]); l < 0.6*mean || l > 1.4*mean {
				t.Fatalf("pool %d: %s judges %v traces, mean %v", n, m.name, l, mean)
			}
		}
	}
}

// juriedDays is founders and ann, who publishes per traces a day on March
// 1 to days; each day the juries are drawn by rules from the files so far
// and every juror present (present(name, day)) passes at 18:00 that day
// its traces of the day and those it was assigned while away, as a node
// catching up does. It returns the input and each trace's jury.
func juriedDays(rules string, names []string, days, per int, present func(string, int) bool) (Input, map[manifest.Hash][]string) {
	in := Input{Rules: rules, Founders: founders(names...)}
	juries := map[manifest.Hash][]string{}
	owed := map[string][]manifest.Hash{}
	for day := 1; day <= days; day++ {
		var today []*ledger.Trace
		for i := 0; i < per; i++ {
			today = append(today, dated(tr("ann", day*100+i, "knowledge", "pebble"), day))
		}
		in.Traces = append(in.Traces, today...)
		as, _ := NewAssignments(in)
		for _, t := range today {
			juries[t.Hash] = as.Jury(t)
			for _, n := range juries[t.Hash] {
				owed[n] = append(owed[n], t.Hash)
			}
		}
		for _, n := range names {
			if !present(n, day) {
				continue
			}
			for _, h := range owed[n] {
				v := at(val(n, h, "pass"), day)
				v.ValidatedAt = v.ValidatedAt.Add(18 * time.Hour)
				in.Validations = append(in.Validations, v)
			}
			owed[n] = nil
		}
	}
	return in, juries
}

// onJuries counts the traces of day whose jury names name.
func onJuries(in Input, juries map[manifest.Hash][]string, name string, day int) int {
	n := 0
	for _, t := range in.Traces {
		if EpochOf(t.Submitted) == EpochOf(dated(t, day).Submitted) && slices.Contains(juries[t.Hash], name) {
			n++
		}
	}
	return n
}

// TestUnderMesh2026v5JurorsAwayAreNotDrawn: f8 validates nothing from
// March 1 to 4. Under mesh-2026-4 it stays on juries, which wait for it;
// under mesh-2026-5 it is drawn on March 1 and 2 (nobody can know it
// left), and from March 3, two days after its first unanswered
// assignment, on no jury while five others are present. Back on March 5,
// it validates the traces it was assigned on March 1 and 2, and is drawn
// again from March 6.
func TestUnderMesh2026v5JurorsAwayAreNotDrawn(t *testing.T) {
	names := []string{"f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8"}
	const days, per = 7, 12
	away := func(n string, day int) bool { return n != "f8" || day == 5 }
	for _, rules := range []string{RulesMesh2026v4, RulesMesh2026v5} {
		in, juries := juriedDays(rules, names, days, per, away)
		r := Compute(in)
		for _, tr := range r.Traces {
			if !slices.Equal(tr.Jury, juries[tr.Hash]) {
				t.Fatalf("%s: %s's jury %v in the report, %v drawn by Assignments", rules, tr.Hash, tr.Jury, juries[tr.Hash])
			}
		}
		for day := 1; day <= days; day++ {
			n := onJuries(in, juries, "f8", day)
			drawn := rules == RulesMesh2026v4 || day <= 2 || day >= 6
			if (n > 0) != drawn {
				t.Errorf("%s, March %d: f8 on %d of %d juries, want drawn %v", rules, day, n, per, drawn)
			}
		}
	}
}

// TestUnderMesh2026v5JurorsAwayFillOnlyEmptySeats: with six founders of
// which f5 and f6 are away, juries from March 3 are f1–f4 and the away
// founder of higher weight: a jury stays five while the pool has five.
func TestUnderMesh2026v5JurorsAwayFillOnlyEmptySeats(t *testing.T) {
	names := []string{"f1", "f2", "f3", "f4", "f5", "f6"}
	present := func(n string, _ int) bool { return n != "f5" && n != "f6" }
	in, juries := juriedDays(RulesMesh2026v5, names, 4, 6, present)
	for _, tr := range in.Traces {
		if EpochOf(tr.Submitted) < EpochOf(dated(tr, 3).Submitted) {
			continue
		}
		j := juries[tr.Hash]
		want := append(byWeight(tr.Hash, names[:4]), byWeight(tr.Hash, names[4:])[0])
		if !slices.Equal(j, want) {
			t.Fatalf("%s: jury %v, want the four present by weight, then %v", tr.Hash, j, want[4])
		}
	}
}

// TestUnderMesh2026v5ANewlyAdmittedValidatorIsDrawn: x, admitted by files
// of March 1, has no assignment to have left unanswered, so it is on the
// juries of March 2 as under mesh-2026-4.
func TestUnderMesh2026v5ANewlyAdmittedValidatorIsDrawn(t *testing.T) {
	in := admittedOn(1)
	in.Rules = RulesMesh2026v5
	r := Compute(in)
	if day2 := traceResult(r, hash("y", 2)); !slices.Contains(day2.Jury, "x") || day2.Seen != 3 {
		t.Fatalf("y's trace of March 2: %+v, want x on the jury", day2)
	}
}

// TestAssignmentsAwaySaysWhatTheNewestJuriesWereDrawnWith: f8 validates
// nothing, or only on March 3. Assignments.Away says it is away as of the
// newest day's epoch exactly when markAway passed it over on that day's
// juries: from March 3 (two days after its first assignment) while it is
// silent, not the day after it validates, never under mesh-2026-4, and
// never for an agent outside the pool.
func TestAssignmentsAwaySaysWhatTheNewestJuriesWereDrawnWith(t *testing.T) {
	names := []string{"f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8"}
	silent := func(n string, _ int) bool { return n != "f8" }
	backOn3 := func(n string, day int) bool { return n != "f8" || day == 3 }
	for _, c := range []struct {
		name    string
		rules   string
		days    int
		present func(string, int) bool
		want    bool
	}{
		{"drawn two days", RulesMesh2026v5, 2, silent, false},
		{"away from the third", RulesMesh2026v5, 3, silent, true},
		{"present the day after it validates", RulesMesh2026v5, 4, backOn3, false},
		{"nobody away under mesh-2026-4", RulesMesh2026v4, 3, silent, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, juries := juriedDays(c.rules, names, c.days, 12, c.present)
			as, ok := NewAssignments(in)
			if !ok {
				t.Fatal("no assignments")
			}
			if got := as.Away("https://f8.example/"); got != c.want {
				t.Fatalf("Away(f8) = %v, want %v", got, c.want)
			}
			if drawn := onJuries(in, juries, "f8", c.days) > 0; drawn == c.want {
				t.Fatalf("f8 drawn %v on the newest day while Away says %v", drawn, c.want)
			}
			if as.Away("https://nobody.example/") {
				t.Fatal("an agent outside the pool is away")
			}
		})
	}
}
