package ledger

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/slowtest"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/trace"
)

// randPieces are what random strings are made of: what a summary's
// fields escape or mark ("\\", tab, newline, `\-`), what a default may
// be the start of (a hash's prefix, a peer's URL), and plain text.
var randPieces = []string{"", "\\", "\t", "\n", `\-`, "-", "a", "é", "\r", "\x00", "\\t", "\\n", "\\\\", " ", "sha256:", jolt}

// randURLs are the peers' URLs random records are filed under, odd ones
// among them.
var randURLs = []string{jolt, axon, bolt2, "https://x.example/a\tb/", "https://y.example/\\-/"}

func randStr(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(4) {
		b.WriteString(randPieces[r.IntN(len(randPieces))])
	}
	return b.String()
}

func randTime(r *rand.Rand) time.Time {
	switch r.IntN(4) {
	case 0:
		return time.Time{}
	case 1:
		return day1.Add(time.Duration(r.Int64N(1e15))).In(time.FixedZone("Z", 3600*r.IntN(5)))
	case 2:
		return time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)
	}
	return day1.Add(time.Duration(r.IntN(1000)) * time.Nanosecond)
}

func randInt(r *rand.Rand) int64 {
	switch r.IntN(4) {
	case 0:
		return 0
	case 1:
		return -r.Int64()
	case 2:
		return r.Int64()
	}
	return r.Int64N(100)
}

// randTrace is a trace of the peer at url, every field random, its URL
// the default or not.
func randTrace(r *rand.Rand, url string) *Trace {
	t := &Trace{Agent: randStr(r), AgentURL: url, Seq: manifest.Seq(randInt(r)),
		Hash: manifest.Hash("sha256:" + randStr(r) + fmt.Sprint(r.IntN(50))), File: randStr(r), Type: randStr(r),
		Category: randStr(r), Title: randStr(r), Status: manifest.Status(randStr(r)), Submitted: randTime(r),
		FirstSeen: randTime(r), Fingerprint: trace.Fingerprint(r.Uint64() * uint64(r.IntN(2))), Verified: r.IntN(2) == 0,
		TakenDown: randStr(r)}
	if r.IntN(3) == 0 {
		t.Agent = "agent"
	}
	switch r.IntN(4) {
	case 0:
		t.URL = url + t.File
	case 2:
		t.URL = randStr(r)
	case 3:
		t.URL = randURLs[r.IntN(len(randURLs))] + t.File
	}
	for range r.IntN(3) {
		t.Verdicts = append(t.Verdicts, Verdict{Agent: randStr(r), Seq: int(randInt(r)), Result: randStr(r)})
	}
	return t
}

// randValidation is a validation by the peer at url, every field
// random, its source under its URL or not.
func randValidation(r *rand.Rand, url string) *Validation {
	v := &Validation{Validator: randStr(r), ValidatorURL: url, TraceURL: randStr(r), TraceHash: manifest.Hash(randStr(r)),
		Result: randStr(r), Total: int(randInt(r)), HasScores: r.IntN(2) == 0, ValidatedAt: randTime(r),
		SourceHash: manifest.Hash(randStr(r))}
	for i := range v.Scores {
		v.Scores[i] = int(randInt(r))
	}
	switch r.IntN(3) {
	case 0:
		v.SourceURL = url + randStr(r)
	case 1:
		v.SourceURL = randStr(r)
	}
	if r.IntN(3) == 0 {
		v.Validator = "agent"
	}
	return v
}

// randLedger is a ledger of a few random records of every kind, a trace
// among them under a key not its hash.
func randLedger(r *rand.Rand) *Ledger {
	l := New()
	for range 1 + r.IntN(8) {
		url := randURLs[r.IntN(len(randURLs))]
		switch r.IntN(6) {
		case 0:
			l.AddTrace(randTrace(r, url))
		case 1:
			l.Traces[manifest.Hash(randStr(r))] = randTrace(r, url)
		case 2:
			l.AddCopy(randTrace(r, url))
		case 3, 4:
			l.AddValidation(randValidation(r, url))
		case 5:
			l.AddRejection(randStr(r), &Rejection{Agent: randStr(r), AgentURL: url, Seq: manifest.Seq(randInt(r)),
				ClaimedHash: manifest.Hash(randStr(r)), At: randTime(r)})
			l.AddDispute(&Dispute{Reporter: randStr(r), ReporterURL: url, FileURL: randStr(r), Seq: manifest.Seq(randInt(r)),
				ObservedAt: randTime(r), SourceHash: manifest.Hash(randStr(r))})
		}
	}
	return l
}

// TestRandomRecordsReadBackThroughTheirSummaries: random records, every
// field odd somewhere (escapes, defaults and their absence, zero and
// extreme numbers, times in other zones), sealed and saved, read through
// their summaries as Load reads them whole (but a trace's title and
// citations), and their summaries are the bytes the writer gives of what
// was read: a field the writer dropped and the reader defaulted alike
// would be seen here, not by FuzzDecodeSummary's decode-encode-decode.
// 300 seeds; 4,000 with MESHNODE_SLOW_TESTS=1.
func TestRandomRecordsReadBackThroughTheirSummaries(t *testing.T) {
	seeds := uint64(300)
	if slowtest.Enabled() {
		seeds = 4000
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 7))
		p := filepath.Join(t.TempDir(), "ledger.json")
		l := randLedger(r)
		compacted(t, l, time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC))
		if _, err := l.Save(p); err != nil {
			t.Fatalf("seed %d: save: %v", seed, err)
		}
		readsBack(t, seed, p)
	}
}

// readsBack checks that the ledger at p reads through its summaries as
// Load reads it, and that its summaries are what the writer gives of
// what was read.
func readsBack(t *testing.T, seed uint64, p string) {
	t.Helper()
	full, err := Load(p)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	got, err := LoadCompact(p)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	if len(got.seal.dirty) != 0 {
		t.Fatalf("seed %d: %d groups stale", seed, len(got.seal.dirty))
	}
	if want := summarizedCopy(full); !sameRecords(got, want) {
		t.Fatalf("seed %d: through the summaries:\n%v\nwant:\n%v", seed, whole(t, got), whole(t, want))
	}
	groups := map[string][]sealedSegment{}
	for rel, s := range got.seal.segs {
		groups[summaryGroup(rel)] = append(groups[summaryGroup(rel)], s)
	}
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		segs := groups[g]
		slices.SortFunc(segs, func(a, b sealedSegment) int { return strings.Compare(a.rel, b.rel) })
		again, err := encodeSummary(segs)
		if err != nil {
			t.Fatal(err)
		}
		disk, err := statefile.ReadSummary(p, g, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, disk) {
			t.Fatalf("seed %d: summary %s written again as\n%q\nwant\n%q", seed, g, again, disk)
		}
	}
}
