package score

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

// Heuristic is the built-in scorer: deterministic (the same input always
// gets the same result) and explained (every dimension comes with the
// facts that produced its score). See docs/scoring.md.
type Heuristic struct {
	// Params are its calibration knobs; nil means DefaultParams.
	Params *Params
}

// Name returns "heuristic".
func (Heuristic) Name() string { return KindHeuristic }

// dimension scores one dimension from what the judge saw.
type dimension func(j *judge) (int, []string)

// dimensions are in the order of validation.Dimensions.
var dimensions = [validation.NumDimensions]dimension{
	substance, uniqueness, specificity, actionability, structure, freshness,
}

// Score judges in. It never fails on content: an empty or unreadable
// trace simply scores low, with reasons that say so.
func (h Heuristic) Score(ctx context.Context, in Input) (*Result, error) {
	rs, err := ScoreEach(ctx, in, []*Params{h.params()})
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// ScoreEach judges in once with each set of knobs, reading the trace once:
// what a grid search over Params needs (docs/scoring.md).
func ScoreEach(ctx context.Context, in Input, ps []*Params) ([]*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	j := newJudge(in, copyDistance(ps))
	out := make([]*Result, len(ps))
	for n, p := range ps {
		out[n] = j.result(p)
	}
	return out, nil
}

// copyDistance is the farthest simhash distance at which any of ps looks
// at the nearest known trace (NearCopyDistance, SimilarDistance).
func copyDistance(ps []*Params) int {
	d := -1
	for _, p := range ps {
		d = max(d, p.NearCopyDistance, p.SimilarDistance)
	}
	return d
}

// result scores the judged trace with the knobs p.
func (j *judge) result(p *Params) *Result {
	j.p = p
	r := &Result{}
	for i, dim := range dimensions {
		s, why := dim(j)
		r.Scores[i] = clamp(s)
		r.Reasons[i] = why
	}
	j.capCopy(r)
	r.Notes = notes(r)
	return r
}

// judge is what the dimensions look at: the body's features and the
// trace's metadata, merged from the parsed trace and the MANIFEST row.
type judge struct {
	in       Input
	p        *Params
	f        *features
	body     []byte
	title    string
	typ      string
	when     time.Time // Submitted, else the trace's own date
	cites    int
	buildsOn int
	words    int   // body words, prose and code
	nearest  Known // the known trace whose text is closest
	copyDist int   // its simhash distance; 65 when nothing is known
}

// newJudge reads in, looking for a near copy among the known traces no
// farther than within (copyDistance).
func newJudge(in Input, within int) *judge {
	body := traceBody(in)
	nearest, dist := nearestKnown(in, Fingerprint(body), within)
	return judgeOf(in, body, analyze(string(body)), nearest, dist)
}

// traceBody is the markdown the heuristic reads: the parsed body, else
// the raw bytes without front matter.
func traceBody(in Input) []byte {
	if in.Trace != nil && len(in.Trace.Body) > 0 {
		return in.Trace.Body
	}
	return stripFrontMatter(in.Raw)
}

// judgeOf merges the body's features f and its nearest known trace with
// the metadata of the parsed trace and the MANIFEST row.
func judgeOf(in Input, body []byte, f *features, nearest Known, dist int) *judge {
	j := &judge{in: in, typ: strings.ToLower(in.Entry.Type), when: in.Entry.Submitted}
	j.body, j.f, j.nearest, j.copyDist = body, f, nearest, dist
	j.words = j.f.proseWords + j.f.codeWords
	j.title = j.f.title
	j.cites = j.countCites()
	if t := in.Trace; t != nil {
		if t.Title != "" {
			j.title = t.Title
		}
		if j.typ == "" {
			j.typ = strings.ToLower(t.Type)
		}
		j.cites = max(j.cites, len(t.Cites))
		j.buildsOn = len(t.BuildsOn)
		for k, v := range t.Fields {
			if _, ok := j.f.fields[k]; !ok {
				j.f.fields[k] = v
			}
		}
		mergeField(j.f.fields, "date", t.Date)
		mergeField(j.f.fields, "type", t.Type)
		mergeField(j.f.fields, "category", t.Category)
		mergeField(j.f.fields, "agent", t.Agent)
	}
	if j.typ == "" {
		j.typ = strings.ToLower(j.f.fields["type"])
	}
	if j.when.IsZero() {
		j.when = parseDate(j.f.fields["date"])
	}
	return j
}

// countCites counts the distinct traces the body cites: "agent/seq", and
// "agent trace N" or "agent's seq N" in words when agent is the author or
// an agent the node knows (the words before "trace" are otherwise just
// words: "from trace 12", "our trace 5").
func (j *judge) countCites() int {
	named := map[string]bool{} // agents named in word citations not also given as agent/seq
	for c := range j.f.wordCites {
		if !j.f.cites[c] {
			agent, _, _ := strings.Cut(c, "/")
			named[agent] = true
		}
	}
	n := len(j.f.cites)
	if len(named) == 0 {
		return n
	}
	// One pass over the known traces, looking up only the names used.
	known := map[string]bool{strings.ToLower(j.in.Agent): true}
	if j.in.Trace != nil {
		known[strings.ToLower(j.in.Trace.Agent)] = true
	}
	for _, k := range j.in.Known {
		if a := strings.ToLower(k.Agent); named[a] {
			known[a] = true
		}
	}
	for c := range j.f.wordCites {
		agent, _, _ := strings.Cut(c, "/")
		if known[agent] && !j.f.cites[c] {
			n++
		}
	}
	return n
}

// nearestKnown finds the known trace closest to fp, ties broken by hash,
// among those no farther than within; (Known{}, 65) when there is none.
// The heuristic looks no farther (copyDistance), so the distance is
// compared first and the hashes only of those that close: this runs over
// every known trace for every trace scored.
func nearestKnown(in Input, fp trace.Fingerprint, within int) (Known, int) {
	best, bestDist := -1, min(within, 64)+1
	for i := range in.Known {
		k := &in.Known[i]
		d := Distance(fp, k.Fingerprint)
		if d > bestDist || k.Fingerprint == 0 || k.Hash == in.Hash {
			continue
		}
		if d < bestDist || best >= 0 && k.Hash < in.Known[best].Hash {
			best, bestDist = i, d
		}
	}
	if best < 0 {
		return Known{}, 65
	}
	return in.Known[best], bestDist
}

// copyDimensions are the dimensions a near-copy cannot earn: its
// substance, specificity and actionability were already counted for the
// trace it copies, so a republished trace fails however good the original.
var copyDimensions = []int{0, 2, 3}

func (j *judge) capCopy(r *Result) {
	if j.copyDist > j.p.NearCopyDistance {
		return
	}
	for _, i := range copyDimensions {
		if r.Scores[i] > 1 {
			r.Scores[i] = 1
			r.Reasons[i] = append(r.Reasons[i], "capped at 1: near-copy of "+j.copyOf())
		}
	}
}

func mergeField(m map[string]string, k, v string) {
	if v != "" && m[k] == "" {
		m[k] = v
	}
}

// stripFrontMatter drops a leading YAML block, used when no parsed trace
// is at hand.
func stripFrontMatter(raw []byte) []byte {
	if !bytes.HasPrefix(raw, []byte("---\n")) && !bytes.HasPrefix(raw, []byte("---\r\n")) {
		return raw
	}
	rest := raw[3:]
	if i := bytes.Index(rest, []byte("\n---")); i >= 0 {
		rest = rest[i+4:]
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			return rest[j+1:]
		}
		return nil
	}
	return raw
}

func parseDate(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	if len(s) >= 10 {
		if t, err := time.Parse("2006-01-02", s[:10]); err == nil {
			return t
		}
	}
	return time.Time{}
}

func clamp(s int) int {
	return min(max(s, 0), validation.MaxScore)
}

// notes writes the one line that goes into the validation file.
func notes(r *Result) string {
	total := Total(r.Scores)
	best, worst := 0, 0
	for i, s := range r.Scores {
		if s > r.Scores[best] {
			best = i
		}
		if s < r.Scores[worst] {
			worst = i
		}
	}
	return fmt.Sprintf("Heuristic score %d/%d (%s). Strongest: %s %d (%s). Weakest: %s %d (%s).",
		total, validation.MaxTotal, verdict(total),
		validation.Dimensions[best], r.Scores[best], first(r.Reasons[best]),
		validation.Dimensions[worst], r.Scores[worst], first(r.Reasons[worst]))
}

// Total adds up the six dimensions.
func Total(s validation.Scores) int {
	t := 0
	for _, v := range s {
		t += v
	}
	return t
}

// verdict is the result a total earns (docs/protocol.md §7.2: pass at 18 of 30).
func verdict(total int) string {
	if total >= validation.PassThreshold {
		return validation.ResultPass
	}
	return validation.ResultFail
}

func first(reasons []string) string {
	if len(reasons) == 0 {
		return "no reason recorded"
	}
	return reasons[0]
}
