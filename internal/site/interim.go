package site

// Readers the site needs from packages that are still being written
// (internal/trace, internal/validation, internal/presence,
// internal/signal): each is a small stand-in to be replaced by a call to
// the package when it lands, so the site stays buildable meanwhile.

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/validation"
)

var citeRE = regexp.MustCompile(`([A-Za-z0-9_.-]+)/0*([0-9]{1,9})\b`)

// parseCites reads "czero/096, noobagent/158" into canonical keys.
func parseCites(s string) []string {
	var out []string
	for _, m := range citeRE.FindAllStringSubmatch(s, -1) {
		seq, _ := strconv.Atoi(m[2])
		out = append(out, citeKey(m[1], seq))
	}
	return out
}

// readTrace reads a trace's metadata (front matter or bold fields) and
// keeps the markdown body without the front matter.
func readTrace(data []byte) *Trace {
	t := &Trace{}
	body := data
	if fm, rest, ok := splitFrontMatter(data); ok {
		body = rest
		var meta map[string]any
		if yaml.Unmarshal(fm, &meta) == nil {
			applyFrontMatter(t, meta)
		}
	}
	t.Body = body
	for _, line := range strings.Split(string(body), "\n") {
		line = strings.TrimRight(line, "\r")
		if t.Title == "" && strings.HasPrefix(line, "# ") {
			t.Title = strings.TrimSpace(line[2:])
		}
		if strings.HasPrefix(line, "**") {
			if f, ok := fieldLine(line); ok {
				applyField(t, f)
			}
		}
	}
	return t
}

func splitFrontMatter(data []byte) (fm, rest []byte, ok bool) {
	d := bytes.TrimPrefix(data, []byte("\ufeff"))
	if !bytes.HasPrefix(d, []byte("---\n")) && !bytes.HasPrefix(d, []byte("---\r\n")) {
		return nil, data, false
	}
	start := bytes.IndexByte(d, '\n') + 1
	for i := start; i < len(d); {
		end := bytes.IndexByte(d[i:], '\n')
		line := d[i:]
		if end >= 0 {
			line = d[i : i+end]
		}
		if string(bytes.TrimRight(line, "\r \t")) == "---" {
			if end < 0 {
				return d[start:i], nil, true
			}
			return d[start:i], d[i+end+1:], true
		}
		if end < 0 {
			break
		}
		i += end + 1
	}
	return nil, data, false
}

func applyFrontMatter(t *Trace, meta map[string]any) {
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := meta[k]
		switch strings.ToLower(k) {
		case "title":
			t.Title = textOf(v)
		case "tags":
			t.Tags = list(v)
		case "citations", "cites":
			t.Cites = append(t.Cites, parseCites(strings.Join(list(v), ", "))...)
		default:
			applyField(t, Field{Name: k, Value: textOf(v)})
		}
	}
}

func applyField(t *Trace, f Field) {
	switch strings.ToLower(f.Name) {
	case "type":
		t.Type = f.Value
	case "category":
		t.Category = f.Value
	case "cites", "citations":
		t.Cites = append(t.Cites, parseCites(f.Value)...)
	case "tags":
		t.Tags = strings.Split(f.Value, ", ")
	default:
		t.Meta = append(t.Meta, f)
	}
}

func textOf(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		return strings.Join(list(x), ", ")
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	}
	return fmt.Sprint(v)
}

func list(v any) []string {
	switch x := v.(type) {
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, textOf(e))
		}
		return out
	case string:
		return strings.Split(x, ", ")
	}
	return nil
}

// readValidation reads the canonical validation layout of seed 000.
func readValidation(data []byte) (*Vote, error) {
	v := &Vote{}
	dims := map[string]int{}
	for i, d := range validation.Dimensions {
		dims[d] = i
	}
	for _, line := range strings.Split(string(data), "\n") {
		key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch key {
		case "validator":
			v.Validator = value
		case "validator_url":
			v.ValidatorURL = value
		case "trace_url":
			v.TraceURL = value
		case "trace_hash":
			v.TraceHash = value
		case "validated_at":
			v.ValidatedAt, _ = time.Parse(time.RFC3339, value)
		case "result":
			v.Result = value
		case "total_score":
			v.Total, _ = strconv.Atoi(value)
		default:
			if i, ok := dims[key]; ok {
				v.Scores[i], _ = strconv.Atoi(value)
				v.HasScores = true
			}
		}
	}
	if v.TraceHash == "" {
		return nil, fmt.Errorf("not a validation: no trace_hash")
	}
	return v, nil
}

// Presence thresholds, stand-ins for internal/presence: a node polls every
// 30 minutes (seed 000), so a peer heard from within two heartbeats is
// active, within a day stale, and offline after that.
const (
	activeWithin = time.Hour
	staleWithin  = 24 * time.Hour
)

func presenceOf(c *state.Cursor, now time.Time) string {
	switch {
	case c == nil || c.LastSuccess.IsZero():
		if c != nil && c.Status == state.StatusUnreachable {
			return "unreachable"
		}
		return "offline"
	case c.Status == state.StatusUnreachable:
		return "unreachable"
	case now.Sub(c.LastSuccess) <= activeWithin:
		return "active"
	case now.Sub(c.LastSuccess) <= staleWithin:
		return "stale"
	}
	return "offline"
}

// standings is a stand-in for signal.Compute: traces validated and
// validations given per agent, with the SIGNAL and tier AGENTS.md states.
func standings(n *Node) []Standing {
	by := map[string]*Standing{}
	get := func(a string) *Standing {
		if by[a] == nil {
			by[a] = &Standing{Agent: a, Tier: "Provisional"}
		}
		return by[a]
	}
	get(n.Agent)
	for _, t := range n.Traces {
		if t.Status == "validated" {
			get(n.Agent).Validated++
		}
	}
	for _, v := range n.Votes {
		get(v.Validator).Validations++
	}
	out := make([]Standing, 0, len(by))
	for _, s := range by {
		s.Signal = float64(s.Validations)
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Signal != out[j].Signal {
			return out[i].Signal > out[j].Signal
		}
		return out[i].Agent < out[j].Agent
	})
	return out
}
