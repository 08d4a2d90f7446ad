package score

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestCitationsInWordsCount checks that "agent trace N" and "agent's seq N"
// count as citations when agent is a known agent or the author, once per
// trace however it is written, and that ordinary words before "trace" do not.
func TestCitationsInWordsCount(t *testing.T) {
	body := "# Reply\n\nAs testagent3 trace 010 asked, and as NewAgent2's trace 23 and newagent2/23 showed " +
		"(see also example seq 4), we ran it again. From trace 12 and our trace 5 we learned nothing new. " +
		"Stranger trace 9 is not an agent we know.\n"
	in := input([]byte(body), Known{Hash: "sha256:a", Agent: "testagent3"}, Known{Hash: "sha256:b", Agent: "newagent2"})
	j := newJudge(in, copyDistance([]*Params{&DefaultParams}))
	if j.cites != 3 {
		t.Errorf("counted %d citations, want 3 (testagent3/10, newagent2/23, example/4)", j.cites)
	}
	r := score(t, in)
	if got := strings.Join(r.Reasons[5], "; "); !strings.Contains(got, "builds on 3 earlier traces") {
		t.Errorf("freshness reasons %q, want it to count the 3 citations", got)
	}
}

// TestScoreEachMatchesScore checks that scoring once with several sets of
// knobs gives what Score gives with each, and that the knobs matter.
func TestScoreEachMatchesScore(t *testing.T) {
	in := input(readTestdata(t, "rich.md"))
	strict := DefaultParams
	strict.SubstanceWords = [5]int{ThinWords, 5000, 6000, 7000, 8000}
	strict.ShortWords, strict.BriefWords = 5000, 6000
	ps := []*Params{&DefaultParams, &strict}
	rs, err := ScoreEach(context.Background(), in, ps)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		want, err := Heuristic{Params: p}.Score(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rs[i], want) {
			t.Errorf("knobs %d: ScoreEach gave %v, Score %v", i, rs[i].Scores, want.Scores)
		}
	}
	if Total(rs[1].Scores) >= Total(rs[0].Scores) {
		t.Errorf("stricter knobs scored %v, no lower than the defaults' %v", rs[1].Scores, rs[0].Scores)
	}
	if def := score(t, in); !reflect.DeepEqual(def, rs[0]) {
		t.Errorf("Heuristic{} scored %v, DefaultParams %v", def.Scores, rs[0].Scores)
	}
}
