package ledger

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"github.com/meshnode/meshnode/internal/manifest"
)

// sharedHistory is a year of three agents publishing a typed trace a
// week, each validated by the next agent, whose validation names the
// trace's URL: the strings Load is to hold once.
func sharedHistory(now time.Time) *Ledger {
	l := New()
	for w := range 52 {
		at := now.AddDate(0, 0, -7*(52-w))
		for a := range 3 {
			url := fmt.Sprintf("https://agent-%d.example/traces/", a)
			h := manifest.Hash(fmt.Sprintf("sha256:%064x", w*3+a))
			file := fmt.Sprintf("%d.md", w)
			l.AddTrace(&Trace{Agent: fmt.Sprintf("agent-%d", a), AgentURL: url, Seq: manifest.Seq(w + 1), Hash: h, File: file, URL: url + file,
				Type: "analysis", Category: "ops", Submitted: at, FirstSeen: at, Verified: true})
			b := (a + 1) % 3
			l.AddValidation(&Validation{Validator: fmt.Sprintf("agent-%d", b), ValidatorURL: fmt.Sprintf("https://agent-%d.example/validations/", b),
				TraceURL: url + file, TraceHash: h, Result: "pass", SourceHash: manifest.Hash(fmt.Sprintf("sha256:%064x", 1<<40+w*3+a)), ValidatedAt: at})
		}
	}
	return l
}

// TestLoadHoldsEachRepeatedStringOnce requires a loaded ledger, through
// the peers' files and through the summaries of its segments, to hold one
// copy of each agent's name and URL, type, category and result, a trace's
// hash shared with its key, and a validation's trace hash and URL shared
// with the trace it names: the JSON decoder gives each record its own.
func TestLoadHoldsEachRepeatedStringOnce(t *testing.T) {
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	l := sharedHistory(now)
	if err := l.Compact(now); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	for _, load := range []struct {
		name string
		f    func(string) (*Ledger, error)
	}{{"whole", Load}, {"summaries", LoadCompact}} {
		t.Run(load.name, func(t *testing.T) {
			got, err := load.f(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Traces) != 156 || len(got.Validations) != 156 {
				t.Fatalf("loaded %d traces and %d validations, want 156 of each", len(got.Traces), len(got.Validations))
			}
			copies := map[string]map[*byte]bool{}
			held := func(s string) {
				if copies[s] == nil {
					copies[s] = map[*byte]bool{}
				}
				copies[s][unsafe.StringData(s)] = true
			}
			for k, tr := range got.Traces {
				if unsafe.StringData(string(k)) != unsafe.StringData(string(tr.Hash)) {
					t.Errorf("trace %s: its hash is a copy of its key", k)
				}
				held(tr.Agent)
				held(tr.AgentURL)
				held(tr.Type)
				held(tr.Category)
			}
			for _, v := range got.Validations {
				tr := got.Traces[v.TraceHash]
				if tr == nil {
					t.Fatalf("validation of %s: no trace", v.TraceHash)
				}
				if unsafe.StringData(string(v.TraceHash)) != unsafe.StringData(string(tr.Hash)) || unsafe.StringData(v.TraceURL) != unsafe.StringData(tr.URL) {
					t.Errorf("validation of %s: its trace hash or URL is a copy of the trace's", v.TraceHash)
				}
				held(v.Validator)
				held(v.ValidatorURL)
				held(v.Result)
			}
			for s, ptrs := range copies {
				if len(ptrs) != 1 {
					t.Errorf("%q held %d times", s, len(ptrs))
				}
			}
		})
	}
}
