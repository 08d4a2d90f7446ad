package signal

import (
	"fmt"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// boughtStanding is issue 20's first attack: mallory labels five ordinary
// traces capability/rock and one founder's automatic heartbeat passes
// them all; mallory then fails honest's trace, which that founder passed.
// extra adds what the test needs besides.
func boughtStanding(rules string, extra ...*ledger.Validation) Input {
	in := Input{Founders: founders("fred", "gina"), Rules: rules}
	for s := 1; s <= 5; s++ {
		in.Traces = append(in.Traces, tr("mallory", s, "capability", "rock"))
		in.Validations = append(in.Validations, val("fred", hash("mallory", s), "pass"))
	}
	in.Traces = append(in.Traces, tr("honest", 1, "knowledge", "pebble"))
	in.Validations = append(in.Validations, val("fred", hash("honest", 1), "pass"), val("mallory", hash("honest", 1), "fail"))
	in.Validations = append(in.Validations, extra...)
	return in
}

func TestOneFoundersAutomaticPassesBuyNoStanding(t *testing.T) {
	honest := hash("honest", 1)
	tests := []struct {
		name           string
		in             Input
		malloryStands  bool
		mallorySignal  float64
		honestStatus   manifest.Status
		honestSignalAt float64
	}{
		{"mesh-2026-1: five self-labelled rocks passed by one founder buy standing, and its vote contests an honest trace",
			boughtStanding(RulesMesh2026v1), true, 51, manifest.StatusContested, 0},
		{"mesh-2026-2: the same passes earn 1 each, no standing, and the honest trace stays validated",
			boughtStanding(RulesMesh2026v2), false, 5, manifest.StatusValidated, 1},
		{"mesh-2026-2: a second founder's passes corroborate the rocks and admit mallory",
			boughtStanding(RulesMesh2026v2, val("gina", hash("mallory", 1), "pass"), val("gina", hash("mallory", 2), "pass"),
				val("gina", hash("mallory", 3), "pass"), val("gina", hash("mallory", 4), "pass"), val("gina", hash("mallory", 5), "pass")),
			true, 50, manifest.StatusContested, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compute(tt.in)
			m := agentByName(r, "mallory")
			if m.Standing != tt.malloryStands || m.Signal != tt.mallorySignal {
				t.Errorf("mallory: standing %v SIGNAL %v; want %v %v (%+v)", m.Standing, m.Signal, tt.malloryStands, tt.mallorySignal, m.Breakdown)
			}
			for _, tr := range r.Traces {
				if tr.Hash == honest && tr.Status != tt.honestStatus {
					t.Errorf("honest's trace is %s, want %s", tr.Status, tt.honestStatus)
				}
			}
			if got := agentByName(r, "honest").Signal; got != tt.honestSignalAt {
				t.Errorf("honest's SIGNAL %v, want %v", got, tt.honestSignalAt)
			}
		})
	}
}

// bulkScoring is issue 20's second attack: a node founded an hour ago
// validates n traces of others in one heartbeat (one validated_at); a
// second founder validated the first agreed of them the same way.
func bulkScoring(rules string, n, agreed int, at time.Time) Input {
	in := Input{Founders: founders("bulk", "fred"), Rules: rules}
	for i := 1; i <= n; i++ {
		author := fmt.Sprintf("a%02d", i%13)
		t := tr(author, i, "knowledge", "pebble")
		in.Traces = append(in.Traces, t)
		v := val("bulk", t.Hash, "pass")
		v.ValidatedAt = at
		in.Validations = append(in.Validations, v)
		if i <= agreed {
			in.Validations = append(in.Validations, val("fred", t.Hash, "pass"))
		}
	}
	return in
}

func TestOneBulkHeartbeatBuysBoundedSignal(t *testing.T) {
	at := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		in     Input
		signal float64
		tier   string
	}{
		{"mesh-2026-1: 849 validations in one heartbeat earn 849: Trusted", bulkScoring(RulesMesh2026v1, 849, 0, at), 899, TierTrusted},
		{"mesh-2026-2: validations nobody else settled earn nothing", bulkScoring(RulesMesh2026v2, 849, 0, at), 50, TierEstablished},
		{"mesh-2026-2: of 40 that agreed with another founder, 10 earn in one day", bulkScoring(RulesMesh2026v2, 849, 40, at), 60, TierEstablished},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := agentByName(Compute(tt.in), "bulk")
			if a.Signal != tt.signal || a.Tier != tt.tier {
				t.Errorf("bulk: SIGNAL %v %s, want %v %s (%+v)", a.Signal, a.Tier, tt.signal, tt.tier, a.Breakdown)
			}
		})
	}
}

func TestAValidationEarnsOnlyWhenItAgreesWithTheSettledOutcome(t *testing.T) {
	day := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	vote := func(who string, h manifest.Hash, result string, at time.Time) *ledger.Validation {
		v := val(who, h, result)
		v.ValidatedAt = at
		return v
	}
	in := Input{Founders: founders("f1", "f2", "f3", "f4"), Rules: RulesMesh2026v2,
		Traces: []*ledger.Trace{tr("ann", 1, "knowledge", "pebble"), tr("ann", 2, "knowledge", "pebble"), tr("ann", 3, "knowledge", "pebble")}}
	in.Validations = []*ledger.Validation{
		// ann/1: all pass: each agrees with the other two.
		vote("f1", hash("ann", 1), "pass", day), vote("f2", hash("ann", 1), "pass", day), vote("f3", hash("ann", 1), "pass", day),
		// ann/2: f3 fails against three passes: f3 earns nothing.
		vote("f1", hash("ann", 2), "pass", day), vote("f2", hash("ann", 2), "pass", day), vote("f3", hash("ann", 2), "fail", day),
		vote("f4", hash("ann", 2), "pass", day),
		// ann/3: f1 alone: nothing settled, nothing earned.
		vote("f1", hash("ann", 3), "pass", day),
	}
	r := Compute(in)
	for name, want := range map[string]float64{"f1": 52, "f2": 52, "f3": 51, "f4": 51} {
		if got := agentByName(r, name).Signal; got != want {
			t.Errorf("%s: SIGNAL %v, want %v (%+v)", name, got, want, agentByName(r, name).Breakdown)
		}
	}
	t.Run("the day bound counts each UTC day apart, and a backdated vote counts on its trace's day", func(t *testing.T) {
		in := Input{Founders: founders("f1", "f2"), Rules: RulesMesh2026v2}
		for i := 1; i <= 30; i++ {
			tr := tr("ann", i, "knowledge", "pebble")
			tr.Submitted = day
			in.Traces = append(in.Traces, tr)
			at := day.Add(time.Duration(i%3) * 24 * time.Hour) // 10 votes on each of three days
			if i > 20 {
				at = day.Add(-30 * 24 * time.Hour) // backdated before the trace: counts on its day
			}
			in.Validations = append(in.Validations, vote("f1", tr.Hash, "pass", at), vote("f2", tr.Hash, "pass", day))
		}
		// f1: days 0, 1, 2 hold 6+7+7 of the first 20, and the 10
		// backdated join day 0: min(16,10)+7+7 = 24. f2: all on day 0.
		r := Compute(in)
		if f1, f2 := agentByName(r, "f1").Signal, agentByName(r, "f2").Signal; f1 != 50+24 || f2 != 50+10 {
			t.Errorf("f1 %v f2 %v, want 74 and 60", f1, f2)
		}
	})
}
