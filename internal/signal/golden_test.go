package signal

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

var update = flag.Bool("update", false, "rewrite the golden reports under testdata/golden")

// goldenHistories is how many seeded histories the golden reports cover,
// each computed under every rule set.
const goldenHistories = 12

// TestReportsMatchGoldens is the differential guard of the mesh's
// internals (docs/decisions.md, "SIGNAL once a heartbeat"): the full
// Report of seeded random histories under every rule set, computed with
// and without a pool cache, is field for field and byte for byte the
// one the code at 9e28e5ab computed, committed in testdata/golden (go
// test -run TestReportsMatchGoldens -update rewrites them).
func TestReportsMatchGoldens(t *testing.T) {
	for seed := int64(1); seed <= goldenHistories; seed++ {
		in := goldenHistory(seed)
		for _, rules := range KnownRules() {
			name := fmt.Sprintf("%02d-%s", seed, rules)
			t.Run(name, func(t *testing.T) {
				in.Rules = rules
				got := encodeReport(t, Compute(in))
				path := filepath.Join("testdata", "golden", name+".json.gz")
				if *update {
					writeGolden(t, path, got)
					return
				}
				want := readGolden(t, path)
				p := NewPools()
				for i, r := range []Report{Compute(in), p.Compute(in), p.Compute(in)} {
					assertSameReport(t, fmt.Sprintf("computation %d", i), encodeReport(t, r), want)
				}
			})
		}
	}
}

// assertSameReport fails unless got and want encode the same Report:
// every field deep-equal once read back, and the same bytes.
func assertSameReport(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var g, w Report
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("golden: %v", err)
	}
	if !reflect.DeepEqual(g.Agents, w.Agents) {
		t.Errorf("%s: agents differ:\n got %+v\nwant %+v", what, g.Agents, w.Agents)
	}
	if !reflect.DeepEqual(g.Traces, w.Traces) {
		t.Errorf("%s: traces differ:\n got %+v\nwant %+v", what, g.Traces, w.Traces)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: reports differ:\n got %+v\nwant %+v", what, g, w)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: the encoded report differs from the golden file", what)
	}
}

// writeGolden writes report to path gzipped (84 reports are 5.7 MB as
// JSON, 0.7 MB gzipped, in a repository every node forks).
func writeGolden(t *testing.T, path string, report []byte) {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(report); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readGolden is the report writeGolden wrote to path.
func readGolden(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("golden %s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("golden %s: %v", path, err)
	}
	return b
}

func encodeReport(t *testing.T, r Report) []byte {
	t.Helper()
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestGoldenHistoriesExerciseTheRules guards the generator: its
// histories give agents standing by rounds, copies, verdict votes,
// juries and lost standing, so the goldens cover each.
func TestGoldenHistoriesExerciseTheRules(t *testing.T) {
	var rounds, copies, juries, lost, verdicts int
	for seed := int64(1); seed <= goldenHistories; seed++ {
		in := goldenHistory(seed)
		for _, tr := range in.Traces {
			verdicts += len(tr.Verdicts)
		}
		for _, rules := range []string{RulesMesh2026v3, RulesMesh2026v7} {
			in.Rules = rules
			r := Compute(in)
			rounds = max(rounds, r.Rounds)
			for _, tr := range r.Traces {
				if tr.Copy {
					copies++
				}
				if len(tr.Jury) > 0 {
					juries++
				}
			}
			for _, a := range r.Agents {
				if a.StandingLost {
					lost++
				}
			}
		}
	}
	if rounds < 3 || copies == 0 || juries == 0 || lost == 0 || verdicts == 0 {
		t.Errorf("rounds %d, copies %d, juries %d, standing lost %d, verdicts %d: a case is not covered", rounds, copies, juries, lost, verdicts)
	}
}

// goldenHistory is a random history, the same for a seed: agents known by
// URL (written in several forms) or by name alone, founders, traces over
// several days (so that pools run under rules that assign), votes by
// files and by verdicts, repeated and copied files, copies of traces and
// disputes.
func goldenHistory(seed int64) Input {
	rng := rand.New(rand.NewSource(seed))
	g := goldenGen{rng: rng, agents: 4 + rng.Intn(11), days: 4 + rng.Intn(8)}
	in := Input{}
	for i := 0; i < 2+rng.Intn(3); i++ {
		name, url := g.writer(i)
		in.Founders = append(in.Founders, Founder{Name: name, URL: url})
	}
	for i := 0; i < g.agents*(15+rng.Intn(10)); i++ {
		t := g.trace(i)
		in.Traces = append(in.Traces, t)
		if rng.Intn(8) == 0 {
			c := g.trace(1000 + i)
			c.Hash, c.Type, c.Category = t.Hash, t.Type, t.Category
			in.Copies = append(in.Copies, c)
		}
	}
	for _, t := range in.Traces {
		if rng.Intn(5) == 0 {
			t.Verdicts = g.verdicts(in.Traces)
		}
		in.Validations = append(in.Validations, g.votes(t, in.Founders)...)
	}
	for i := rng.Intn(40); i > 0; i-- {
		in.Disputes = append(in.Disputes, g.dispute(in.Traces))
	}
	if rng.Intn(2) == 0 {
		in.Disputes = append(in.Disputes, g.rewriter(in.Traces[rng.Intn(len(in.Traces))])...)
	}
	return in
}

// goldenGen draws the parts of a golden history.
type goldenGen struct {
	rng          *rand.Rand
	agents, days int
	files        int
}

// writer is how a file names agent i: its name, in either case, and its
// URL, in one of the forms that normalize alike; every seventh agent has
// no URL, and now and then a file names an agent by name alone.
func (g *goldenGen) writer(i int) (name, url string) {
	i %= g.agents
	name = fmt.Sprintf("Agent%02d", i)
	if g.rng.Intn(4) == 0 {
		name = strings.ToLower(name)
	}
	if i%7 == 6 || g.rng.Intn(20) == 0 {
		return name, ""
	}
	switch g.rng.Intn(3) {
	case 0:
		return name, fmt.Sprintf("https://agent%02d.example/", i)
	case 1:
		return name, fmt.Sprintf("https://AGENT%02d.example", i)
	default:
		return name, fmt.Sprintf("https://agent%02d.example/", i)
	}
}

// at is a time on day d of the history, or now and then none.
func (g *goldenGen) at(d int) time.Time {
	if g.rng.Intn(30) == 0 {
		return time.Time{}
	}
	return time.Date(2026, 3, 1+d, g.rng.Intn(24), g.rng.Intn(60), 0, 0, time.UTC)
}

func (g *goldenGen) trace(i int) *ledger.Trace {
	types := []string{"capability", "capability", "capability", "knowledge", "signal", "task", "note", ""}
	cats := []string{"rock", "rock", "rock", "pebble", "sand", "boulder", ""}
	name, url := g.writer(g.rng.Intn(g.agents))
	seq := 1 + g.rng.Intn(60)
	file := fmt.Sprintf("traces/%03d-t.md", seq+g.rng.Intn(2))
	return &ledger.Trace{Agent: name, AgentURL: url, Seq: manifest.Seq(seq), File: file, URL: url + file,
		Hash: manifest.HashBytes(fmt.Appendf(nil, "trace %d %d", g.rng.Int63(), i)), Type: types[g.rng.Intn(len(types))],
		Category: cats[g.rng.Intn(len(cats))], Submitted: g.at(g.rng.Intn(g.days)), Verified: g.rng.Intn(2) == 0}
}

// verdicts is what a trace says of others, by their author's name and seq
// or file number.
func (g *goldenGen) verdicts(ts []*ledger.Trace) []ledger.Verdict {
	results := []string{"valid", "valid", "invalid", "partial"}
	var out []ledger.Verdict
	for i := 1 + g.rng.Intn(3); i > 0; i-- {
		t := ts[g.rng.Intn(len(ts))]
		out = append(out, ledger.Verdict{Agent: strings.ToLower(t.Agent), Seq: int(t.Seq) + g.rng.Intn(2), Result: results[g.rng.Intn(len(results))]})
	}
	return out
}

// votes are the validation files on t: mostly founders' and others'
// passes, a few fails and files that do not count, some rewritten later
// or at the same time, some listed by two agents, some of unknown traces.
func (g *goldenGen) votes(t *ledger.Trace, fs []Founder) []*ledger.Validation {
	results := []string{"pass", "pass", "pass", "fail", "maybe"}
	var out []*ledger.Validation
	for v := 1 + g.rng.Intn(6); v > 0; v-- {
		g.files++
		name, url := g.writer(g.rng.Intn(g.agents))
		if v%2 == 1 {
			f := fs[g.rng.Intn(len(fs))]
			name, url = f.Name, f.URL
		}
		day := g.rng.Intn(g.days)
		if !t.Submitted.IsZero() && g.rng.Intn(4) != 0 {
			day = t.Submitted.Day() - 1 + g.rng.Intn(3)
		}
		lv := &ledger.Validation{Validator: name, ValidatorURL: url, TraceHash: t.Hash, Result: results[g.rng.Intn(len(results))],
			ValidatedAt: g.at(day), SourceHash: manifest.HashBytes(fmt.Appendf(nil, "file %d", g.files))}
		if g.rng.Intn(25) == 0 {
			lv.TraceHash = manifest.HashBytes(fmt.Appendf(nil, "unknown %d", g.files))
		}
		out = append(out, lv)
		switch g.rng.Intn(10) {
		case 0: // the same validator's later or simultaneous file
			again := *lv
			again.Result, again.SourceHash = results[g.rng.Intn(4)], manifest.HashBytes(fmt.Appendf(nil, "again %d", g.files))
			again.ValidatedAt = again.ValidatedAt.Add(time.Duration(g.rng.Intn(2)) * time.Hour)
			out = append(out, &again)
		case 1: // the same file, listed by another agent
			c := *lv
			c.Validator, c.ValidatorURL = g.writer(g.rng.Intn(g.agents))
			out = append(out, &c)
		}
	}
	return out
}

// rewriter is the disputes of a host that rewrites t's author's files:
// three of its seqs, each disputed by the first three agents.
func (g *goldenGen) rewriter(t *ledger.Trace) []ledger.Dispute {
	var out []ledger.Dispute
	for s := 0; s < 3; s++ {
		for r := 0; r < 3; r++ {
			d := g.dispute([]*ledger.Trace{t})
			d.Reporter, d.ReporterURL = g.writer(r)
			d.Seq = t.Seq - manifest.Seq(s)
			d.ClaimedHash = manifest.HashBytes(fmt.Appendf(nil, "%s claims %d", t.Agent, d.Seq))
			out = append(out, d)
		}
	}
	return out
}

// dispute is a dispute of a file of a trace's author, by an agent or a
// founder, of a hash never served or of the trace's own.
func (g *goldenGen) dispute(ts []*ledger.Trace) ledger.Dispute {
	t := ts[g.rng.Intn(len(ts))]
	name, url := g.writer(g.rng.Intn(g.agents))
	if g.rng.Intn(2) == 0 {
		name, url = g.writer(g.rng.Intn(3))
	}
	seq := int(t.Seq) - g.rng.Intn(3)
	claimed := manifest.HashBytes(fmt.Appendf(nil, "%s claims %d", t.Agent, seq))
	if g.rng.Intn(5) == 0 {
		claimed = t.Hash
	}
	return ledger.Dispute{Reporter: name, ReporterURL: url, Agent: t.Agent, AgentURL: t.AgentURL, FileURL: t.URL, Seq: manifest.Seq(seq),
		ClaimedHash: claimed, ServedHash: manifest.HashBytes([]byte("rewritten")), ObservedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
}
