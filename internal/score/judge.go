package score

import (
	"bytes"
	"strings"
	"time"
)

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
	j := &judge{in: in, typ: strings.ToLower(in.Record.Type), when: in.Record.Submitted}
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
