package heartbeat

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/validation"
)

// betasValidation is beta's validation, at url, of the trace of hash h.
func betasValidation(url string, h manifest.Hash) string {
	v := validation.Validation{Validator: "beta", ValidatorURL: url, TraceURL: "https://gamma.example/traces/x.md", TraceHash: h,
		ValidatedAt: testNow.Add(-time.Hour), Result: validation.ResultPass, Total: 20, HasScores: true,
		Scores: validation.Scores{4, 4, 4, 4, 2, 2}, Notes: "Sound."}
	return string(v.Format())
}

// TestThePublishedIndexHoldsOnlyTheHashesThePollsBringAsTraces: the
// index publishedByAnother reads held every validation and dispute of
// the ledger, by file hash, in every heartbeat whose polls brought a
// trace: 442,331 validations at three years of 10,000 agents, 26 MB and
// 0.4 s (BenchmarkPublishedByAnotherCost/3y), to answer for the hundred
// hashes a heartbeat's polls bring as traces. Now it holds those hashes
// alone, and answers the same: beta's validations read beside mallory's
// listing of the bytes of one of them as a trace leave in the index that
// one file, beta's, and mallory's row is still no trace of hers.
func TestThePublishedIndexHoldsOnlyTheHashesThePollsBringAsTraces(t *testing.T) {
	const validations = 5
	p := newFakePeer(t)
	beta, mallory := p.URL+"/beta/", p.URL+"/mallory/"
	var betas [][4]string
	var copied manifest.Hash
	for i := range validations {
		h := manifest.HashBytes(fmt.Appendf(nil, "# Gamma's trace %d\n", i))
		body := betasValidation(beta, h)
		betas = append(betas, [4]string{"validations/" + validation.FileName(h), body, "validation", "published"})
		copied = manifest.HashBytes([]byte(body))
	}
	p.publishRows("/beta/", betas)
	p.publishRows("/mallory/", [][4]string{
		{"traces/001-mine.md", "# Mallory's own\n\nWords.\n", "knowledge", "pending"},
		{"traces/002-also-mine.md", betas[validations-1][1], "knowledge", "pending"},
	})
	dir := newNode(t, [][2]string{{"beta", beta}, {"mallory", mallory}}, "gossip:\n  enabled: false\n")
	n := openJob(t, dir, nil)
	peers, err := n.peers()
	if err != nil {
		t.Fatal(err)
	}
	results := n.pollAll(context.Background(), peers)
	if err := n.quietUnless(results); err != nil {
		t.Fatal(err)
	}
	if err := n.apply(results); err != nil {
		t.Fatal(err)
	}
	if got := len(n.ledger.ValidationsBy(beta)); got != validations {
		t.Fatalf("setup: %d of beta's validations recorded, want %d", got, validations)
	}
	if tr := n.ledger.Traces[copied]; tr != nil {
		t.Errorf("beta's validation is recorded as %s's trace", tr.AgentURL)
	}
	if want := map[manifest.Hash]string{copied: beta}; !maps.Equal(n.published, want) {
		t.Errorf("the index holds %d hashes %v, want only the one brought as a trace that beta publishes: %v",
			len(n.published), slices.Sorted(maps.Keys(n.published)), want)
	}
}

// TestPublishedByAnotherAnswersAsTheWholeLedgerDoes: whatever the ledger
// holds (validations naming a trace or not, disputes, bytes two agents
// publish), the index kept for the hashes brought as traces answers, for
// every lister and hash, what a look at every record of the ledger
// answers (publishedByAnotherInLedger), also for files recorded after
// the index was built, and for hashes asked that the apply did not take
// in: the index does not lose a record to a caller that skipped it.
func TestPublishedByAnotherAnswersAsTheWholeLedgerDoes(t *testing.T) {
	urls := []string{"https://a.example/", "https://b.example/", "https://c.example/"}
	hash := func(i int) manifest.Hash { return manifest.HashBytes(fmt.Appendf(nil, "file %d", i)) }
	const files = 12
	records := func() *ledger.Ledger {
		l := ledger.New()
		for i := range files {
			by := urls[i%len(urls)]
			switch i % 4 {
			case 0:
				l.AddValidation(&ledger.Validation{ValidatorURL: by, TraceHash: hash(100 + i), SourceHash: hash(i)})
			case 1:
				l.AddValidation(&ledger.Validation{ValidatorURL: by, SourceHash: hash(i)}) // a file that did not parse
			case 2:
				l.AddDispute(&ledger.Dispute{ReporterURL: by, ClaimedHash: hash(100 + i), Seq: 1, SourceHash: hash(i)})
			case 3:
				for _, u := range urls[:2] { // two publishers of the same bytes
					l.AddValidation(&ledger.Validation{ValidatorURL: u, TraceHash: hash(100 + i), SourceHash: hash(i)})
				}
			}
		}
		return l
	}
	var brought []fetched
	for i := range files + 2 { // two hashes no record holds
		if i%3 != 2 { // a third of the files no poll brings as a trace
			brought = append(brought, fetched{kind: node.KindTrace, entry: manifest.Entry{Hash: hash(i)}})
		}
	}
	brought = append(brought, fetched{kind: node.KindValidation, entry: manifest.Entry{Hash: hash(2)}})
	later := &ledger.Validation{ValidatorURL: urls[2], TraceHash: hash(200), SourceHash: hash(13)}
	for _, tc := range []struct {
		name    string
		brought map[manifest.Hash]bool
	}{
		{"the hashes the polls bring", tracesBrought([]*pollResult{{files: brought}})},
		{"hashes asked outside the apply", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := records()
			n := &job{ledger: l, brought: tc.brought}
			for step, f := range brought {
				if f.kind != node.KindTrace {
					continue
				}
				if step == len(brought)/2 { // recorded once the index was built
					l.AddValidation(later)
					n.notePublished(later.SourceHash, later.ValidatorURL)
				}
				for _, url := range append(urls, "https://lister.example/") {
					if got, want := n.publishedByAnother(url, f.entry.Hash), publishedByAnotherInLedger(l, url, f.entry.Hash); got != want {
						t.Errorf("%s listing %s as a trace: published by another %v, want %v", url, f.entry.Hash.Hex(8), got, want)
					}
				}
			}
		})
	}
}

// publishedByAnotherInLedger is what publishedByAnother answers, read
// from every record of l.
func publishedByAnotherInLedger(l *ledger.Ledger, url string, h manifest.Hash) bool {
	for _, v := range l.Validations {
		if v.SourceHash == h && v.TraceHash != "" && v.ValidatorURL != url {
			return true
		}
	}
	for _, d := range l.Disputes {
		if d.SourceHash == h && d.ReporterURL != url {
			return true
		}
	}
	return false
}

// TestTracesBroughtAreTheTracesOfEveryPoll: the hashes the index keeps
// are those of the files of kind trace of every poll, whatever else the
// polls bring.
func TestTracesBroughtAreTheTracesOfEveryPoll(t *testing.T) {
	h := func(s string) manifest.Hash { return manifest.HashBytes([]byte(s)) }
	file := func(kind node.Kind, s string) fetched { return fetched{kind: kind, entry: manifest.Entry{Hash: h(s)}} }
	results := []*pollResult{
		{files: []fetched{file(node.KindTrace, "a"), file(node.KindValidation, "v"), file(node.KindDispute, "d")}},
		{},
		{files: []fetched{file(node.KindTrace, "b"), file(node.KindTrace, "a"), file(node.KindKey, "k")}},
	}
	want := map[manifest.Hash]bool{h("a"): true, h("b"): true}
	if got := tracesBrought(results); !maps.Equal(got, want) {
		t.Errorf("tracesBrought = %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
}
