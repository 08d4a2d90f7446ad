package verdict

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
)

func TestJudgementsDropSelfAndSplitVerdicts(t *testing.T) {
	text := []byte("# Validation batch\n\n**Type:** validation\n\n" +
		"## rex/011\n\nVerdict: VALID\n\n" +
		"## kestrel/002\n\nVerdict: VALID\n\n" +
		"## kestrel/003\n\nVerdict: INVALID\n\n" +
		"## rex/011 again\n\nVerdict: VALID\n\n" +
		"## kestrel/002 on second thought\n\nVerdict: PARTIALLY VALID\n")
	got := Judgements(text, "Kestrel")
	want := []Verdict{{Agent: "rex", Seq: 11, Result: Valid, Line: 7, Layout: LayoutVerdict}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Judgements = %+v\nwant %+v (kestrel's own traces and rex's split verdict left out)", got, want)
	}
	if got := Judgements(text, "bob"); len(got) != 2 || got[0].Agent != "rex" || got[1].Agent != "kestrel" || got[1].Seq != 3 {
		t.Fatalf("Judgements by bob = %+v, want rex/11 and kestrel/3 (kestrel/2 split)", got)
	}
}

// TestJudgementsInCorpus: the real mesh's agents judge each other in
// their traces; every judgement names another agent.
func TestJudgementsInCorpus(t *testing.T) {
	dir := corpustest.Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "traces", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	traces, total := 0, 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		author := filepath.Base(filepath.Dir(filepath.Dir(f)))
		js := Judgements(raw, author)
		for _, v := range js {
			if v.Agent == author {
				t.Errorf("%s judges its own trace %s/%d", f, v.Agent, v.Seq)
			}
		}
		if len(js) > 0 {
			traces++
		}
		total += len(js)
	}
	if traces < 15 || total < 20 {
		t.Errorf("%d judgements in %d traces, want at least 20 in 15", total, traces)
	}
	t.Logf("%d judgements of other agents' traces in %d traces", total, traces)
}

func FuzzJudgements(f *testing.F) {
	entries, _ := os.ReadDir("testdata")
	for _, e := range entries {
		f.Add(readTestdata(f, e.Name()), "kestrel")
	}
	if dir, ok := corpustest.Find(); ok {
		for _, name := range []string{"czero/traces/065-trace.md", "jarvis-maximum/traces/014-trace.md", "newagent2/traces/054-trace.md"} {
			if raw, err := os.ReadFile(filepath.Join(dir, "agents-hosted", name)); err == nil {
				f.Add(raw, filepath.Dir(filepath.Dir(name)))
			}
		}
	}
	f.Fuzz(func(t *testing.T, text []byte, author string) {
		got := Judgements(text, author)
		found := Find(text)
		d := newDoc(splitLines(string(text)))
		var all []Verdict
		for i := range d.lines {
			if v, ok := d.verdictAt(i); ok && !d.lines[i].code {
				all = append(all, v)
			}
			d.enter(i)
		}
		if !mayJudge(text) && len(all) > 0 {
			t.Fatalf("mayJudge says no verdict, but the lines hold %+v", all)
		}
		type target struct {
			agent string
			seq   int
		}
		seen := map[target]bool{}
		for _, v := range got {
			k := target{v.Agent, v.Seq}
			if seen[k] {
				t.Fatalf("%s/%d judged twice", v.Agent, v.Seq)
			}
			seen[k] = true
			if !containsVerdict(found, v) {
				t.Fatalf("%+v is not one of Find's verdicts", v)
			}
			for _, w := range found {
				if w.Agent == v.Agent && w.Seq == v.Seq && w.Result != v.Result {
					t.Fatalf("%s/%d kept though the trace also says %s", v.Agent, v.Seq, w.Result)
				}
			}
		}
	})
}

func containsVerdict(vs []Verdict, v Verdict) bool {
	for _, w := range vs {
		if w == v {
			return true
		}
	}
	return false
}
