package signal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/slowtest"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

// The tests of this file hold that sealing the ledger's old records into
// segments (ledger.Compact) changes no status, SIGNAL, tier or standing:
// a history is recorded once into a ledger kept whole in memory, and once
// the way heartbeats keep it (compacted, saved and loaded again every
// 45 days, late votes and take-downs arriving for records long sealed), and
// SIGNAL's report over both must be the same under every rule set.

// datedRecord is one change of a history: when it happens and what it records.
type datedRecord struct {
	at     time.Time
	record func(l *ledger.Ledger)
}

var historyStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// timedHistory is randomMesh(seed), and a chain of six agents each
// admitted by the one before (chainMesh), dated over about a year and a
// half:
// trace i is first seen on day 3i, its copies up to 60 days later, its
// votes from that day to 400 days later (many on a trace sealed long
// before, which can admit their authors late or lift others; one in five
// read up to 300 days after the date it gives), disputes
// anywhere in the span, and about one trace in eight withdrawn a year
// after it was seen.
func timedHistory(seed int64) (Input, []datedRecord) {
	in, chain := randomMesh(seed), chainMesh(6)
	random := len(in.Validations) // the chain's votes admit its agents late: they keep their word alone
	in.Traces = append(in.Traces, chain.Traces...)
	in.Validations = append(in.Validations, chain.Validations...)
	in.Founders = append(in.Founders, chain.Founders...)
	rng := rand.New(rand.NewSource(seed))
	day := func(d int) time.Time {
		return historyStart.Add(time.Duration(d)*24*time.Hour + time.Duration(rng.Intn(86400))*time.Second)
	}
	seen := map[manifest.Hash]int{}
	var evs []datedRecord
	// fields draws what SIGNAL reads beyond a vote's word (a trace's
	// verdicts, a vote's scores), from its own stream so that the dates
	// stay as they were.
	fields := rand.New(rand.NewSource(-seed))
	for i, t := range in.Traces {
		t := *t // the ledger gets its own record; the input keeps its own
		if i > 0 && fields.Intn(6) == 0 {
			j := fields.Intn(i)
			t.Verdicts = []ledger.Verdict{{Agent: strings.ToLower(in.Traces[j].Agent), Seq: int(in.Traces[j].Seq),
				Result: []string{"valid", "partial", "invalid"}[fields.Intn(3)]}}
		}
		t.FirstSeen = day(3 * i)
		seen[t.Hash] = 3 * i
		evs = append(evs, datedRecord{t.FirstSeen, func(l *ledger.Ledger) { l.AddTrace(&t) }})
		if rng.Intn(8) == 0 {
			h := t.Hash
			evs = append(evs, datedRecord{day(3*i + 365), func(l *ledger.Ledger) { l.TakeDown(h, ledger.Withdrawn) }})
		}
	}
	for _, c := range in.Copies {
		c := *c
		c.FirstSeen = day(seen[c.Hash] + rng.Intn(60))
		evs = append(evs, datedRecord{c.FirstSeen, func(l *ledger.Ledger) { l.AddCopy(&c) }})
	}
	for i, v := range in.Validations {
		v := *v
		v.ValidatedAt = day(seen[v.TraceHash] + rng.Intn(400))
		if v.SourceHash == "" {
			v.SourceHash = manifest.Hash(fmt.Sprintf("sha256:v%d", i))
		}
		switch d := fields.Intn(6); {
		case i >= random:
		case d < 2: // scores that agree with its word
			v.Scores, v.HasScores = validation.Scores{2, 2, 2, 2, 2, 2}, true
			if v.Result == "pass" {
				v.Scores = validation.Scores{4, 4, 3, 3, 3, 3}
			}
			v.Total = v.Scores.Total()
		case d == 2: // a total that contradicts it: it counts for nothing
			v.Total = 1
			if v.Result != "pass" {
				v.Total = validation.MaxTotal
			}
		}
		arrives := v.ValidatedAt
		if rng.Intn(5) == 0 {
			// Dated by its validator long before we read it: its quarter
			// may be sealed already.
			arrives = arrives.Add(time.Duration(rng.Intn(300)) * 24 * time.Hour)
		}
		evs = append(evs, datedRecord{arrives, func(l *ledger.Ledger) { l.AddValidation(&v) }})
	}
	for i, d := range in.Disputes {
		d.ObservedAt = day(rng.Intn(500))
		d.SourceHash = manifest.Hash(fmt.Sprintf("sha256:d%d", i))
		evs = append(evs, datedRecord{d.ObservedAt, func(l *ledger.Ledger) { l.AddDispute(&d) }})
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at.Before(evs[j].at) })
	return Input{Founders: in.Founders}, evs
}

// recordAll is the history recorded into one ledger, never saved.
func recordAll(evs []datedRecord) *ledger.Ledger {
	l := ledger.New()
	for _, e := range evs {
		e.record(l)
	}
	return l
}

// recordCompacted is the history as a node keeps it: every 45 days the
// changes since, then Compact, Save and LoadCompact (a heartbeat's load:
// the sealed records from their segments' summaries), in the ledger at p.
func recordCompacted(t *testing.T, p string, evs []datedRecord) *ledger.Ledger {
	t.Helper()
	l := ledger.New()
	end := evs[len(evs)-1].at.Add(ledger.Window)
	next := 0
	for now := evs[0].at; ; now = now.Add(45 * 24 * time.Hour) {
		for ; next < len(evs) && !evs[next].at.After(now); next++ {
			evs[next].record(l)
		}
		if err := l.Compact(now); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Save(p); err != nil {
			t.Fatal(err)
		}
		var err error
		if l, err = ledger.LoadCompact(p); err != nil {
			t.Fatal(err)
		}
		if next == len(evs) && now.After(end) {
			return l
		}
	}
}

// inputFrom is SIGNAL's input from a ledger, as FromSnapshot gathers a
// peer's records.
func inputFrom(l *ledger.Ledger, base Input, rules string) Input {
	in := base
	in.Rules = rules
	in.Traces = peerTraces(l, nil)
	in.Copies = copiesOf(l, nil)
	in.Validations = peerValidations(l, nil, "", "")
	in.Disputes = peerDisputes(l, "")
	return in
}

// reportsDiffer says under which rule set SIGNAL's report over full and
// compacted first differs, and how; "" when they agree under every one.
// The reports must be the same bytes, and so must the assignment pools
// each computes and keeps (MarshalPools): their keys digest the records.
func reportsDiffer(base Input, full, compacted *ledger.Ledger) string {
	for _, rules := range KnownRules() {
		wantPools, gotPools := NewPools(), NewPools()
		want := wantPools.Compute(inputFrom(full, base, rules))
		got := gotPools.Compute(inputFrom(compacted, base, rules))
		if !reflect.DeepEqual(got, want) || !bytes.Equal(mustJSON(got), mustJSON(want)) {
			return fmt.Sprintf("under %s the compacted ledger gives another report:\n got %+v\nwant %+v", rules, got.Agents, want.Agents)
		}
		if g, w := MarshalPools(gotPools), MarshalPools(wantPools); !bytes.Equal(g, w) {
			return fmt.Sprintf("under %s the compacted ledger keeps other pools:\n got %s\nwant %s", rules, g, w)
		}
	}
	return ""
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

func TestCompactionChangesNoStatusSignalTierOrStanding(t *testing.T) {
	seeds := int64(2)
	if slowtest.Enabled() {
		seeds = 200
	}
	var segments, lateRounds int
	for seed := int64(1); seed <= seeds; seed++ {
		base, evs := timedHistory(seed)
		p := filepath.Join(t.TempDir(), "ledger.json")
		compacted := recordCompacted(t, p, evs)
		segs, err := statefile.ReadSegments(p)
		if err != nil {
			t.Fatal(err)
		}
		segments += len(segs)
		if d := reportsDiffer(base, recordAll(evs), compacted); d != "" {
			t.Fatalf("seed %d: %s", seed, d)
		}
		if Compute(inputFrom(compacted, base, DefaultRules)).Rounds > 2 {
			lateRounds++
		}
		pools := NewPools()
		pools.Compute(inputFrom(compacted, base, "mesh-2026-4"))
		if len(MarshalPools(pools)) == 0 {
			t.Fatalf("seed %d: no pools under mesh-2026-4: the pools were compared for nothing", seed)
		}
	}
	// The test means something only if records were sealed and some
	// agents were admitted after the first round.
	if segments == 0 || lateRounds == 0 {
		t.Errorf("%d segments, %d histories with standing earned late: the histories test nothing", segments, lateRounds)
	}
	t.Logf("%d histories, %d segments, %d with standing earned after round 2", seeds, segments, lateRounds)
}

// TestCompactionTestSeesADroppedSegment: the comparison above fails when a
// segment is lost, so it would see compaction drop what SIGNAL needs.
func TestCompactionTestSeesADroppedSegment(t *testing.T) {
	seen := 0
	seeds := int64(3)
	if slowtest.Enabled() {
		seeds = 20
	}
	for seed := int64(1); seed <= seeds; seed++ {
		base, evs := timedHistory(seed)
		p := filepath.Join(t.TempDir(), "ledger.json")
		recordCompacted(t, p, evs)
		segs, err := statefile.ReadSegments(p)
		if err != nil {
			t.Fatal(err)
		}
		var largest string
		for rel, data := range segs {
			if len(data) > len(segs[largest]) {
				largest = rel
			}
		}
		if err := os.Remove(filepath.Join(statefile.SegmentsDir(p), filepath.FromSlash(largest))); err != nil {
			t.Fatal(err)
		}
		dropped, err := ledger.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if reportsDiffer(base, recordAll(evs), dropped) != "" {
			seen++
		}
	}
	if seen < int(seeds)-1 {
		t.Errorf("a dropped segment changed the report in %d of %d histories, want all but one at most", seen, seeds)
	}
}

// TestCorpusCompactionChangesNoStatusSignalTierOrStanding: the real
// snapshot's traces, dated by their MANIFEST rows, and its votes, dated
// with their traces, give the same report compacted as whole, with
// abernath37 (one of the mesh's two first agents) a founder.
func TestCorpusCompactionChangesNoStatusSignalTierOrStanding(t *testing.T) {
	in := corpusInput(t)
	submitted := corpusSubmitted(t)
	url := func(agent string) string { return "https://mycelnet.ai/basecamp/agents-hosted/" + agent + "/" }
	var evs []datedRecord
	for _, tr := range in.Traces {
		tr := *tr
		tr.AgentURL, tr.FirstSeen = url(tr.Agent), submitted[tr.Hash]
		evs = append(evs, datedRecord{tr.FirstSeen, func(l *ledger.Ledger) { l.AddTrace(&tr) }})
	}
	for i, v := range in.Validations {
		v := *v
		v.ValidatorURL, v.ValidatedAt = url(v.Validator), submitted[v.TraceHash].Add(time.Duration(i%90)*24*time.Hour)
		v.SourceHash = manifest.Hash(fmt.Sprintf("sha256:v%d", i))
		evs = append(evs, datedRecord{v.ValidatedAt, func(l *ledger.Ledger) { l.AddValidation(&v) }})
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at.Before(evs[j].at) })
	p := filepath.Join(t.TempDir(), "ledger.json")
	compacted := recordCompacted(t, p, evs)
	segs, err := statefile.ReadSegments(p)
	if err != nil || len(segs) == 0 {
		t.Fatalf("no segments (%v): the corpus's records were not sealed", err)
	}
	base := Input{Founders: []Founder{{Name: "abernath37", URL: url("abernath37")}}}
	if d := reportsDiffer(base, recordAll(evs), compacted); d != "" {
		t.Error(d)
	}
	t.Logf("%d traces, %d votes, %d segments", len(in.Traces), len(in.Validations), len(segs))
}

// corpusSubmitted is the submitted time of every row of the snapshot's
// MANIFEST.md files, by hash.
func corpusSubmitted(t *testing.T) map[manifest.Hash]time.Time {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "agents-hosted", "*", "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[manifest.Hash]time.Time{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := manifest.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, e := range m.Entries {
			out[e.Hash] = e.Submitted
		}
	}
	return out
}
