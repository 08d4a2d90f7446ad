package verdict

import (
	"strings"
	"testing"
)

// markerByRegexps is marker without the word check that spares most
// lines the regular expressions: what marker must always agree with.
func (d *doc) markerByRegexps(i int) (string, Result, int) {
	t := d.lines[i].text
	if m := assessmentRe.FindStringSubmatchIndex(t); m != nil {
		return LayoutAssessment, resultOf(t[m[2]:m[3]]), m[0]
	}
	if m := verdictRe.FindStringSubmatchIndex(t); m != nil {
		return LayoutVerdict, resultOf(t[m[2]:m[3]]), m[0]
	}
	if m := boldLeadRe.FindStringSubmatchIndex(t); m != nil {
		return LayoutBoldLead, resultOf(t[m[2]:m[3]]), m[0]
	}
	if m := dashRe.FindStringSubmatchIndex(t); m != nil && strings.HasPrefix(t, "**") {
		return LayoutDashSuffix, resultOf(t[m[2]:m[3]]), m[0]
	}
	if m := endorseRe.FindStringSubmatchIndex(t); m != nil {
		return LayoutEndorsement, resultOfEndorsement(t[m[2]:m[3]]), m[0]
	}
	return d.scoreMarker(i)
}

func FuzzMarkerAgreesWithTheRegexps(f *testing.F) {
	for _, s := range []string{"## Verdict: VALID", "**VALID.** ok", "**Title (seq 2) — PARTIALLY VALID.**", "## Assessment: invalid",
		"Verdict: Build It", "VERDICT:** not valid", "**Score: 5**", "the VALİD verdİct", "aſſessment: valid"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		d := newDoc(splitLines(text))
		for i := range d.lines {
			l1, r1, c1 := d.marker(i)
			l2, r2, c2 := d.markerByRegexps(i)
			if l1 != l2 || r1 != r2 || c1 != c2 {
				t.Fatalf("line %q: marker %s %s %d, regexps %s %s %d", d.lines[i].text, l1, r1, c1, l2, r2, c2)
			}
		}
	})
}

func FuzzFirstRefAgreesWithTheRegexps(f *testing.F) {
	for _, s := range []string{"czero/058 and rex/2", "kestrel's trace 14", "Kestrel TRACE #3", "(seq 4)", "(SEQ 12) of", "traces/012-x.md", "ſeq"} {
		f.Add(s, "axon37")
	}
	f.Fuzz(func(t *testing.T, s, owner string) {
		if got, want := firstRef(s, owner), firstRefOf(s, owner, true, true, owner != ""); got != want {
			t.Fatalf("firstRef(%q, %q) = %+v, every form tried gives %+v", s, owner, got, want)
		}
	})
}
