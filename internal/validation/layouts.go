package validation

import (
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
)

func (d *doc) isCanonical() bool {
	n := 0
	for _, k := range canonicalKeys {
		if _, ok := d.plain[k]; ok {
			n++
		}
	}
	return n >= 2
}

// isV02 asks for a validator, or a verdict together with the trace it is
// about: a verdict alone also appears in ordinary traces that review
// several others (bottymcbotface/015).
func (d *doc) isV02() bool {
	return d.bold["validator"] != "" || d.bold["verdict"] != "" && d.bold["trace"] != ""
}

func (d *doc) isTrace() bool {
	return strings.EqualFold(d.bold["type"], "validation") || strings.EqualFold(d.plain["type"], "validation")
}

func (d *doc) canonical() (*Validation, []string) {
	var f [len(canonicalKeys)]string
	for i, k := range canonicalKeys {
		f[i] = d.plain[k]
	}
	v := canonicalRecord(f, d.plain["notes"])
	problems := v.setScores(d.scores)
	return v, append(problems, v.settle(f[keyTotal], "total_score")...)
}

// canonicalRecord is the validation whose canonical keys hold f (indexed
// like canonicalKeys, each on one line) and whose notes are these, before
// its scores and total are read.
func canonicalRecord(f [len(canonicalKeys)]string, notes string) *Validation {
	return &Validation{
		Layout:    LayoutCanonical,
		Validator: f[keyValidator], ValidatorURL: f[keyValidatorURL],
		TraceURL: f[keyTraceURL], TraceHash: manifest.HashAsWritten(f[keyTraceHash]),
		ValidatedAt: parseTime(f[keyValidatedAt]),
		Result:      strings.ToLower(f[keyResult]),
		Notes:       oneLine(notes),
	}
}

func (d *doc) v02() (*Validation, []string) {
	v := &Validation{
		Layout:    LayoutV02,
		Validator: d.bold["validator"], ValidatorURL: firstOf(d.bold, "validator url", "validator_url"),
		TraceHash:   manifest.HashAsWritten(d.bold["hash"]),
		ValidatedAt: parseTime(firstOf(d.bold, "validated at", "date")),
		Result:      verdict(d.bold["verdict"]),
		Notes:       oneLine(firstNonEmpty(d.bold["notes"], d.sectionText("notes"))),
	}
	v.setTrace(d.bold["trace"])
	problems := v.setScores(d.sectionScores())
	return v, append(problems, v.settle(d.bold["total"], "total")...)
}

// trace reads a validation trace. Such traces are endorsements written by
// people and agents: with no verdict word and no score, they count as a
// pass.
func (d *doc) trace() *Validation {
	v := &Validation{
		Layout:      LayoutTrace,
		Validator:   firstOf(d.bold, "agent", "author"),
		ValidatedAt: parseTime(d.bold["date"]),
		Notes:       oneLine(d.title),
		TraceRef:    firstNonEmpty(traceRef(d.bold["validates"]), traceRef(d.title), traceRef(d.bold["cites"])),
	}
	if total, ok := scaledTotal(d.bold["score"]); ok {
		v.Total = total
	}
	v.Result = firstNonEmpty(verdict(d.bold["verdict"]), d.headingVerdict(), verdict(d.bold["status"]))
	if v.Result == "" {
		v.Result = ResultPass
		if _, ok := d.bold["score"]; ok {
			v.Result = ResultFor(v.Total)
		}
	}
	return v
}

// headingVerdict reads "## Assessment: VALID" style headings.
func (d *doc) headingVerdict() string {
	for _, h := range d.headings {
		if k, rest, ok := strings.Cut(h, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "assessment") {
			return verdict(rest)
		}
	}
	return ""
}
