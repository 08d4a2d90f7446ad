package ledger

import (
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// editAtRandom changes l as a heartbeat might after Load: a record added
// in a past quarter or a recent one, a sealed trace resealed with other
// bytes, a peer renamed, a trace withdrawn, a copy giving way to its
// trace or taken down, or nothing.
func editAtRandom(r *rand.Rand, l *Ledger, now time.Time) string {
	hashes := slices.Sorted(func(yield func(manifest.Hash) bool) {
		for h := range l.Traces {
			if !yield(h) {
				return
			}
		}
	})
	switch r.IntN(8) {
	case 0:
		return "nothing"
	case 1:
		// Through the methods, as a heartbeat adds them: only they change
		// a loaded ledger's records (Ledger.changed).
		addRandom(r, l, now)
		return "records added"
	case 2:
		if len(hashes) > 0 {
			c := *l.Traces[hashes[r.IntN(len(hashes))]]
			c.Title = "resealed"
			l.AddTrace(&c)
		}
		return "a record resealed"
	case 3:
		l.Rename("https://a1.example/", "https://renamed.example/")
		return "a peer renamed"
	case 4:
		if len(hashes) > 0 {
			l.TakeDown(hashes[r.IntN(len(hashes))], "withdrawn")
		}
		return "a trace withdrawn"
	case 5:
		for k, c := range l.Copies {
			l.Promote(c.Hash, c.AgentURL)
			_ = k
			break
		}
		return "a copy giving way"
	case 6:
		for _, c := range l.Copies {
			l.TakeDownCopy(c.AgentURL, c.Hash, "taken down")
			break
		}
		return "a copy taken down"
	default:
		l.AddValidation(&Validation{Validator: "v", ValidatorURL: "https://a2.example/", TraceHash: "sha256:00",
			SourceHash: "sha256:01", ValidatedAt: randomTime(r, now)})
		return "a validation dated in the past"
	}
}

// TestCompactSkipsItsPassOnlyWhenTheWholePassSealsNothing: over generated
// ledgers compacted, saved, loaded (whole or through the summaries) and
// then changed as a heartbeat changes them, a Compact that skips its pass
// (mayBeDue false) is one whose whole pass, record by record, would seal
// nothing: Compact's result is the whole pass's.
func TestCompactSkipsItsPassOnlyWhenTheWholePassSealsNothing(t *testing.T) {
	skipped, due := 0, 0
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 24))
		now := time.Date(2029, 1, 1, 12, 45, 0, 0, time.UTC).Add(time.Duration(r.IntN(400)) * 24 * time.Hour)
		l := loadedAfterCompact(t, r, now, seed%2 == 0)
		for step := range 6 {
			what := editAtRandom(r, l, now)
			at := now.Add(time.Duration(r.IntN(200)) * 24 * time.Hour)
			batch := compactWhole(l, at)
			if !l.mayBeDue(at) {
				skipped++
				if len(batch) > 0 {
					t.Fatalf("seed %d step %d (%s): Compact at %s skips its pass, the whole pass seals %v",
						seed, step, what, at, batchShape(batch))
				}
				continue
			}
			due++
			if r.IntN(2) == 0 {
				compacted(t, l, at)
			}
		}
	}
	if skipped == 0 || due == 0 {
		t.Fatalf("skipped %d, passed %d: the generated ledgers test one side only", skipped, due)
	}
}

// loadedAfterCompact is a generated ledger compacted at now, saved, and
// loaded as a heartbeat loads it (LoadCompact when summaries).
func loadedAfterCompact(t *testing.T, r *rand.Rand, now time.Time, summaries bool) *Ledger {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
	l := randomLedger(r, now)
	compacted(t, l, now.AddDate(0, -3*r.IntN(3), 0))
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	load := Load
	if summaries {
		load = LoadCompact
	}
	l, err := load(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestCompactOfAnUnchangedLoadedLedgerPassesOverNoRecord: Compact of a
// loaded ledger of which nothing changed and no quarter is due allocates
// nothing, whatever it holds; a record added makes it pass over the
// records again and seal it.
func TestCompactOfAnUnchangedLoadedLedgerPassesOverNoRecord(t *testing.T) {
	now := time.Date(2029, 1, 1, 12, 45, 0, 0, time.UTC)
	l, compact, _ := unchangedCosts(t, 40, now)
	if compact != 0 {
		t.Errorf("Compact with nothing due and nothing changed: %v allocations, want none", compact)
	}
	l.AddTrace(&Trace{Agent: "new", AgentURL: "https://new.example/", Seq: 1, Hash: "sha256:new", FirstSeen: now.AddDate(-1, 0, 0)})
	if !l.mayBeDue(now) {
		t.Fatal("a record added after Load, in a quarter its peer never sealed: Compact skips its pass")
	}
	compacted(t, l, now)
	if !l.seal.holds(l.Traces["sha256:new"]) {
		t.Error("the record added in a quarter due is not sealed")
	}
}

// TestCompactNotesFollowTheLedgerAcrossManyCycles: a ledger kept open
// across many Compacts and Saves, changed between them as a heartbeat
// changes it (editAtRandom) while the clock moves on. After each Compact
// the notes are no more than the quarters of the records left unsealed
// (a quarter sealed, a peer renamed or forgotten leaves none), the next
// Compact at the same time skips its pass, and the records are those a
// fresh Load reads. Before, a file changed or sealed stayed noted for
// good, so every Compact after the first change passed over every
// record, and the notes Load made stayed after their quarters were
// sealed.
func TestCompactNotesFollowTheLedgerAcrossManyCycles(t *testing.T) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 91))
		now := time.Date(2029, 1, 1, 12, 45, 0, 0, time.UTC)
		p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
		if _, err := randomLedger(r, now).Save(p); err != nil {
			t.Fatal(err)
		}
		l, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		for step := range 30 {
			what := editAtRandom(r, l, now)
			now = now.Add(time.Duration(r.IntN(30)) * 24 * time.Hour)
			compacted(t, l, now)
			if _, err := l.Save(p); err != nil {
				t.Fatal(err)
			}
			if l.mayBeDue(now) {
				t.Fatalf("seed %d step %d (%s): a Compact at %s passed and sealed what was due; the next at that time passes again", seed, step, what, now)
			}
			if n, bound := notedQuarters(l), unsealedQuarters(l); n > bound {
				t.Fatalf("seed %d step %d (%s): %d quarters noted, %d hold unsealed records", seed, step, what, n, bound)
			}
			fresh, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(whole(t, l), whole(t, fresh)) {
				t.Fatalf("seed %d step %d (%s): the records differ from a fresh Load's", seed, step, what)
			}
		}
	}
}

// notedQuarters counts the quarters l's unsealed index notes, over its
// peers' files.
func notedQuarters(l *Ledger) int {
	n := len(l.unsealed.changed)
	for _, qs := range l.unsealed.quarters {
		n += len(qs)
	}
	return n
}

// unsealedQuarters counts the quarters, over peers' files, that hold a
// record of l no segment holds.
func unsealedQuarters(l *Ledger) int {
	set := map[string]bool{}
	note := func(rec any, url string, at time.Time) {
		if !l.seal.holds(rec) {
			set[statefile.PeerFileName(url)+" "+quarter(at)] = true
		}
	}
	for _, t := range l.Traces {
		note(t, t.AgentURL, traceTime(t))
	}
	for _, v := range l.Validations {
		note(v, v.ValidatorURL, v.ValidatedAt)
	}
	for _, rj := range l.Rejected {
		note(rj, rj.AgentURL, rj.At)
	}
	for _, d := range l.Disputes {
		note(d, d.ReporterURL, d.ObservedAt)
	}
	for _, c := range l.Copies {
		note(c, c.AgentURL, traceTime(c))
	}
	return len(set)
}
