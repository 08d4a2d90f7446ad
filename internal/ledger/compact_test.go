package ledger

import (
	"fmt"
	"github.com/meshnode/meshnode/internal/cputime"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// compactWhole is Compact's batch as Compact computed it before it
// memoized by peer and quarter: each record asks for its quarter's end,
// its peer's file name and whether that peer sealed the quarter's name.
func compactWhole(l *Ledger, now time.Time) map[string]map[string]*Ledger {
	cut := now.Add(-Window)
	batch := map[string]map[string]*Ledger{}
	add := func(url string, at time.Time, put func(*Ledger)) {
		if quarterEndOf(at).After(cut) {
			return
		}
		name, q := statefile.PeerFileName(url), quarter(at)
		if ps := l.seal.peer(name); ps != nil && ps.quarters[q] {
			return
		}
		if batch[name] == nil {
			batch[name] = map[string]*Ledger{}
		}
		if batch[name][q] == nil {
			batch[name][q] = New()
		}
		put(batch[name][q])
	}
	for k, t := range l.Traces {
		add(t.AgentURL, traceTime(t), func(p *Ledger) { p.Traces[k] = t })
	}
	for k, v := range l.Validations {
		add(v.ValidatorURL, v.ValidatedAt, func(p *Ledger) { p.Validations[k] = v })
	}
	for k, r := range l.Rejected {
		add(r.AgentURL, r.At, func(p *Ledger) { p.Rejected[k] = r })
	}
	for k, d := range l.Disputes {
		add(d.ReporterURL, d.ObservedAt, func(p *Ledger) { p.Disputes[k] = d })
	}
	for k, t := range l.Copies {
		add(t.AgentURL, traceTime(t), func(p *Ledger) {
			if p.Copies == nil {
				p.Copies = map[string]*Trace{}
			}
			p.Copies[k] = t
		})
	}
	return batch
}

// randomTime is a time near a quarter's edge or the window's, or at
// random over four years, or zero, or before year 1, in a zone not UTC
// now and then: where a quarter's arithmetic could slip.
func randomTime(r *rand.Rand, now time.Time) time.Time {
	edge := quarterStartOf(now.Add(-Window).AddDate(0, -3*r.IntN(8), 0))
	var t time.Time
	switch r.IntN(6) {
	case 0:
		t = edge.Add(time.Duration(r.IntN(5)-2) * time.Nanosecond)
	case 1:
		t = now.Add(-Window).Add(time.Duration(r.IntN(5)-2) * time.Second)
	case 2:
		t = time.Time{}
	case 3:
		t = time.Date(0, time.Month(1+r.IntN(12)), 1+r.IntN(28), 0, 0, 0, 0, time.UTC) // before year 1, as JSON can still write it
	default:
		t = now.Add(-time.Duration(r.Int64N(int64(4 * 365 * 24 * time.Hour))))
	}
	if r.IntN(3) == 0 {
		t = t.In(time.FixedZone("east", 5*3600+1800))
	}
	return t
}

// randomLedger holds records of a few peers, of every kind, at
// randomTime.
func randomLedger(r *rand.Rand, now time.Time) *Ledger {
	l := New()
	addRandom(r, l, now)
	return l
}

// addRandom adds to l, through its methods, a few hundred records of
// seven peers, as randomLedger makes them.
func addRandom(r *rand.Rand, l *Ledger, now time.Time) {
	for i := range 200 + r.IntN(200) {
		url := fmt.Sprintf("https://a%d.example/", r.IntN(7))
		h := manifest.Hash(fmt.Sprintf("sha256:%064x", i))
		at := randomTime(r, now)
		switch r.IntN(5) {
		case 0:
			l.AddTrace(&Trace{Agent: "a", AgentURL: url, Seq: manifest.Seq(i + 1), Hash: h, Submitted: at, FirstSeen: randomTime(r, now)})
		case 1:
			l.AddValidation(&Validation{Validator: "v", ValidatorURL: url, TraceHash: h, SourceHash: h, ValidatedAt: at})
		case 2:
			l.AddRejection(fmt.Sprintf("%straces/%d.md", url, i), &Rejection{Agent: "a", AgentURL: url, ClaimedHash: h, ServedHash: h, At: at})
		case 3:
			l.AddDispute(&Dispute{Reporter: "r", ReporterURL: url, Agent: "a", AgentURL: "https://b.example/", Seq: manifest.Seq(i + 1), ClaimedHash: h, ServedHash: h, SourceHash: h, ObservedAt: at})
		default:
			l.AddCopy(&Trace{Agent: "a", AgentURL: url, Seq: manifest.Seq(i + 1), Hash: h, Submitted: at})
		}
	}
}

// TestCompactBatchesAsEveryRecordAsked: over generated ledgers, some of
// whose quarters their peers sealed at an earlier Compact, Compact seals
// the records the whole computation, record by record, finds.
func TestCompactBatchesAsEveryRecordAsked(t *testing.T) {
	for seed := range uint64(100) {
		r := rand.New(rand.NewPCG(seed, 7))
		now := time.Date(2029, 1, 1, 12, 45, 0, 0, time.UTC).Add(time.Duration(r.IntN(400)) * 24 * time.Hour)
		l := randomLedger(r, now)
		compacted(t, l, now.AddDate(0, -3*(1+r.IntN(4)), 0))
		l.add(randomLedger(r, now))
		got, want := l.compactBatch(now).batch, compactWhole(l, now)
		if len(want) == 0 {
			t.Fatalf("seed %d: nothing to seal; the generated ledger tests nothing", seed)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("seed %d: Compact seals\n%v\nthe whole computation\n%v", seed, batchShape(got), batchShape(want))
		}
	}
}

// TestQuarterStartOfIsTheWindowsCut: a time falls in a quarter that ended
// by cut exactly when it is before quarterStartOf(cut), the one
// comparison Compact makes of each record.
func TestQuarterStartOfIsTheWindowsCut(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		now := time.Date(2029, 1, 1, 12, 45, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(800 * 24 * time.Hour))))
		cut, at := now.Add(-Window), randomTime(r, now)
		if whole, one := !quarterEndOf(at).After(cut), at.Before(quarterStartOf(cut)); whole != one {
			t.Fatalf("at %s, cut %s: quarter ended by the cut %v, before its quarter's start %v", at, cut, whole, one)
		}
	}
}

// batchShape is a batch's records counted by peer file and quarter.
func batchShape(b map[string]map[string]*Ledger) map[string]int {
	out := map[string]int{}
	for name, qs := range b {
		for q, p := range qs {
			out[name+" "+q] = len(p.Traces) + len(p.Validations) + len(p.Rejected) + len(p.Disputes) + len(p.Copies)
		}
	}
	return out
}

// BenchmarkCompactNothingDue is a heartbeat's Compact of three years of
// records compacted into segments and loaded as a heartbeat loads them
// (LoadCompact), when no quarter is due: each record is asked whether it
// can seal. Its allocations per op do not depend on the machine's load:
//
//	go test ./internal/ledger/ -run - -bench CompactNothingDue -benchmem
func BenchmarkCompactNothingDue(b *testing.B) {
	now := time.Date(2029, 1, 1, 12, 45, 0, 0, time.UTC)
	l, p := threeYearsLoaded(b, now)
	cputime.Loop(b, func() {
		if err := l.Compact(now); err != nil {
			b.Fatal(err)
		}
	})
	if changed, err := l.Save(p); err != nil || changed {
		b.Fatalf("save after Compact with nothing due: changed=%v err=%v", changed, err)
	}
}

// threeYearsLoaded is three years of 60 peers' records up to now,
// compacted, saved and loaded again as a heartbeat loads them
// (LoadCompact), and the path they were saved to.
func threeYearsLoaded(b *testing.B, now time.Time) (*Ledger, string) {
	b.Helper()
	p := filepath.Join(b.TempDir(), "mesh-state", "ledger.json")
	l := yearOf(60, 3*365, now)
	if err := l.Compact(now); err != nil {
		b.Fatal(err)
	}
	if _, err := l.Save(p); err != nil {
		b.Fatal(err)
	}
	l, err := LoadCompact(p)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	return l, p
}

// BenchmarkCompactAfterAChange is a heartbeat's Compact of three years of
// records, loaded as a heartbeat loads them, after news changed a peer's
// file and with no quarter due: the pass over every record that a change
// costs, the recent records' quarters noted (unsealedIndex.renote):
//
//	go test ./internal/ledger/ -run - -bench CompactAfterAChange -benchmem
func BenchmarkCompactAfterAChange(b *testing.B) {
	now := time.Date(2029, 1, 1, 12, 45, 0, 0, time.UTC)
	l, _ := threeYearsLoaded(b, now)
	i := 0
	cputime.Loop(b, func() {
		i++
		l.AddValidation(&Validation{ValidatorURL: "https://agent-0.example/validations/", TraceHash: "sha256:00",
			SourceHash: manifest.Hash(fmt.Sprintf("sha256:%064x", i)), ValidatedAt: now})
		if err := l.Compact(now); err != nil {
			b.Fatal(err)
		}
	})
}
