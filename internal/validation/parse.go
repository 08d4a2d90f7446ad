package validation

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// canonicalKeys are the keys of docs/protocol.md §7's layout, in the order
// Format writes them; two of them make a canonical validation.
var canonicalKeys = [...]string{"validator", "validator_url", "trace_url", "trace_hash", "validated_at", "result", "total_score"}

// Indexes of canonicalKeys.
const (
	keyValidator = iota
	keyValidatorURL
	keyTraceURL
	keyTraceHash
	keyValidatedAt
	keyResult
	keyTotal
)

// Parse reads a validation in the canonical layout of docs/protocol.md §7, the older
// v0.2 layout ("**Validator:**", "**Verdict:**", a "## Scores" list,
// "**Total: 24/30**") or a real validation trace ("**Type:** validation",
// "**Score: 5**", the judged trace named as "agent/seq"). It returns an
// error when the bytes are none of these, or when a score or the total is
// not a number (the error names every such field).
func Parse(data []byte) (*Validation, error) {
	v, problems := parse(data)
	if len(problems) > 0 {
		return nil, errorf("%s", strings.Join(problems, "; "))
	}
	return v, nil
}

// Diagnose lists everything wrong with a validation file, each problem
// once, for a person to fix them all in one go (meshnode check): the
// fields that do not parse, then what Check finds in the rest. Sums and
// results are not judged against a score or total that did not parse,
// which would only repeat the problem. v is nil when data is not a
// validation at all; problems then holds the one reason.
func Diagnose(data []byte) (v *Validation, problems []string) {
	v, problems = parse(data)
	if v == nil {
		return nil, problems
	}
	return v, append(problems, v.check(len(problems) == 0)...)
}

// parse reads data as far as it can: v is nil when it is no validation,
// and problems names every field that did not parse.
func parse(data []byte) (*Validation, []string) {
	if !utf8.Valid(data) {
		return nil, []string{"not utf-8 text"}
	}
	s := strings.TrimPrefix(string(data), "\ufeff")
	// Most files a node reads are as Format wrote them: its own, and
	// those of peers that run this code.
	if v, ok := parseFormatted(s); ok {
		return v, nil
	}
	return parseGeneral(s)
}

// parseGeneral is parse for text in any layout.
func parseGeneral(s string) (*Validation, []string) {
	d := scan(s)
	switch {
	case d.isCanonical():
		return d.canonical()
	case d.isV02():
		return d.v02()
	case d.isTrace():
		return d.trace(), nil
	}
	return nil, []string{"not a validation: no validator or trace_hash lines, no **Validator:** or **Verdict:**, not a trace of type validation"}
}

// setTrace files the v0.2 "**Trace:**" value as a URL or an agent/seq.
func (v *Validation) setTrace(s string) {
	s = strings.Trim(strings.TrimSpace(s), "<>`")
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		v.TraceURL = s
		return
	}
	v.TraceRef = traceRef(s)
}

// setScores reads each dimension's score, naming every one that is not a
// number, in the order of Dimensions.
func (v *Validation) setScores(raw map[string]string) []string {
	bad := make([]string, NumDimensions)
	for name, value := range raw {
		i, ok := dimensionIndex(name)
		if !ok {
			continue
		}
		n, err := parseScore(value)
		if err != nil {
			bad[i] = fmt.Sprintf("%s: %v", Dimensions[i], err)
			continue
		}
		v.Scores[i], v.HasScores = n, true
	}
	var problems []string
	for _, p := range bad {
		if p != "" {
			problems = append(problems, p)
		}
	}
	return problems
}

// settle fills the total (given, else the sum of the scores) and the
// result (given, else what the total gives).
func (v *Validation) settle(total, key string) []string {
	switch {
	case total != "":
		n, err := parseScore(total)
		if err != nil {
			return []string{fmt.Sprintf("%s: %v", key, err)}
		}
		v.Total = n
	case v.HasScores:
		v.Total = v.Scores.Total()
	case v.Result == "":
		return []string{"no result, no total and no scores"}
	}
	if v.Result == "" {
		v.Result = ResultFor(v.Total)
	}
	return nil
}

// scaledTotal reads a trace's single "**Score: N**": N of 5 (the
// dimension scale) is spread over the six dimensions, N of 30 is a total.
func scaledTotal(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	num, den, hasDen := strings.Cut(s, "/")
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil {
		return 0, false
	}
	d, _ := strconv.Atoi(strings.TrimSpace(den))
	if hasDen && d == MaxTotal || !hasDen && n > MaxScore {
		return n, true
	}
	return n * NumDimensions, true
}

func firstOf(m map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := m[k]; v != "" {
			return v
		}
	}
	return ""
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
