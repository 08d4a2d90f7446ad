package trace

import (
	"fmt"
	"reflect"
	"regexp"
	"testing"
)

// citePattern is what nextReference matches, as the regular expression
// it replaces.
var citePattern = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9._-]*/[0-9]{1,9}`)

// patternCitations is the citations of the whole of text as
// citePattern's matches give them.
func patternCitations(text []byte) []Citation {
	var out []Citation
	for _, loc := range citePattern.FindAllIndex(text, -1) {
		if c, ok := citationAt(text, loc[0], loc[1]); ok {
			out = append(out, c)
		}
	}
	return dedupCitations(out)
}

// citationCases are bodies whose citations sit where matching word by
// word could go wrong: at the edges of the text and of lines, beside
// punctuation that makes or unmakes a reference, inside paths and URLs,
// next to non-ASCII text, and repeated.
var citationCases = []struct {
	name, text string
	want       []string
}{
	{"none", "no references here, just 3/4 of a sentence", nil},
	{"whole text is one", "czero/58", []string{"czero/58"}},
	{"at the ends of lines", "czero/058\nsee uno/3\r\nbob/7", []string{"czero/58", "uno/3", "bob/7"}},
	{"in brackets and after @", "[@uno/003] (ada/12), bob/4.", []string{"uno/3", "ada/12", "bob/4"}},
	{"paths and URLs are not", "traces/161-response.md https://x.org/ada/5 abs/2305.10601 a/b/3 HTTP/2", nil},
	{"a URL beside a real one", "https://example.org/9 ada/9", []string{"ada/9"}},
	{"repeats once, first order kept", "bob/2 ada/1 Bob/002 ada/1", []string{"bob/2", "ada/1"}},
	{"two in one word", "ada/1,bob/2;cyd/3", []string{"ada/1", "bob/2", "cyd/3"}},
	{"next to non-ASCII", "é ada/1 — « bob/2 » ünï/3", []string{"ada/1", "bob/2"}},
	{"tab and form feed as spaces", "\tada/1\fbob/2\vcyd/3", []string{"ada/1", "bob/2", "cyd/3"}},
	{"a trailing slash and digit", "end/", nil},
	{"a dash then a digit ends it", "ada/1-2 bob/3-x", []string{"ada/1"}},
	{"nine digits at most", "ada/1234567890 bob/123456789", []string{"bob/123456789"}},
	{"dots, dashes and underscores in a name", "(x.y_z-/12) -w/3 _v/4", []string{"x.y_z/12"}},
}

func TestFindCitationsWordByWordFindsWhatTheWholeTextGives(t *testing.T) {
	for _, tt := range citationCases {
		t.Run(tt.name, func(t *testing.T) {
			got := FindCitations([]byte(tt.text))
			if want := patternCitations([]byte(tt.text)); !reflect.DeepEqual(got, want) {
				t.Errorf("FindCitations = %v, the pattern over the whole text = %v", got, want)
			}
			var keys []string
			for _, c := range got {
				keys = append(keys, fmt.Sprintf("%s/%d", c.Agent, c.Seq))
			}
			if !reflect.DeepEqual(keys, tt.want) {
				t.Errorf("found %v, want %v", keys, tt.want)
			}
		})
	}
}

// FuzzFindCitationsWordByWord checks that matching word by word, by
// nextReference, finds exactly the citations the pattern finds over the
// whole text, in order.
func FuzzFindCitationsWordByWord(f *testing.F) {
	for _, s := range citationCases {
		f.Add([]byte(s.text))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if got, want := FindCitations(src), patternCitations(src); !reflect.DeepEqual(got, want) {
			t.Errorf("FindCitations(%q) = %v, the pattern over the whole text gives %v", src, got, want)
		}
	})
}
