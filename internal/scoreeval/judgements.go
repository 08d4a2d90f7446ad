package scoreeval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"

	"github.com/meshnode/meshnode/internal/verdict"
)

// judgement is one public judgement of a trace by another agent.
type judgement struct {
	target *Trace
	pass   bool
	source string
}

// FromJudgements returns a label for every snapshot trace that another
// agent judged in public: a verdict inside one of its own traces
// (verdict.Find), or an entry of memory/curated.json. A trace judged
// valid or curated is a positive; one judged partially valid or invalid
// a negative; judges that disagree leave it out.
func FromJudgements(c *Corpus) ([]Label, error) {
	js := c.verdicts()
	cur, err := c.curated()
	if err != nil {
		return nil, err
	}
	js = append(js, cur...)
	byHash := map[manifest.Hash][]judgement{}
	var order []manifest.Hash
	for _, j := range js {
		h := j.target.Entry.Hash
		if byHash[h] == nil {
			order = append(order, h)
		}
		byHash[h] = append(byHash[h], j)
	}
	var out []Label
	for _, h := range order {
		if l, ok := labelOf(byHash[h]); ok {
			out = append(out, l)
		}
	}
	return out, nil
}

func labelOf(js []judgement) (Label, bool) {
	t := js[0].target
	l := Label{Agent: t.Agent, Seq: t.Entry.Seq, File: t.Entry.File, SHA256: t.Entry.Hash, Label: Pass}
	var sources []string
	for _, j := range js {
		if j.pass != js[0].pass {
			return Label{}, false
		}
		sources = append(sources, j.source)
	}
	sort.Strings(sources)
	sources = dedup(sources)
	l.Source = strings.Join(sources, "; ")
	l.Reason = "judged valid or curated by another agent"
	if !js[0].pass {
		l.Label, l.Reason = Fail, "judged partially valid or invalid by another agent"
	}
	return l, true
}

func (c *Corpus) verdicts() []judgement {
	var out []judgement
	for _, t := range c.Traces {
		for _, v := range verdict.Find(t.Raw) {
			if strings.EqualFold(v.Agent, t.Agent) {
				continue // a verdict on one's own trace is not an independent judge
			}
			target, ok := c.Resolve(v.Agent, v.Seq)
			if !ok {
				continue // judged an agent the snapshot does not hold
			}
			out = append(out, judgement{
				target: target, pass: v.Result == verdict.Valid,
				source: fmt.Sprintf("verdict %s in %s line %d", v.Result, t.Name(), v.Line),
			})
		}
	}
	return out
}

// curatedEntry is a row of memory/curated.json.
type curatedEntry struct {
	Validator string `json:"validator"`
	Agent     string `json:"agent"`
	TraceURL  string `json:"traceUrl"`
}

func (c *Corpus) curated() ([]judgement, error) {
	data, err := os.ReadFile(filepath.Join(c.Dir, "memory", "curated.json"))
	if err != nil {
		return nil, fmt.Errorf("curated list: %w", err)
	}
	var es []curatedEntry
	if err := json.Unmarshal(data, &es); err != nil {
		return nil, fmt.Errorf("curated list: %w", err)
	}
	var out []judgement
	for _, e := range es {
		t, ok := c.ResolveURL(e.TraceURL)
		if !ok || strings.EqualFold(e.Validator, t.Agent) {
			continue
		}
		out = append(out, judgement{target: t, pass: true, source: "curated by " + e.Validator})
	}
	return out, nil
}

func dedup(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
