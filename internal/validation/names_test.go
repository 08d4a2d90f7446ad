package validation

import (
	"strings"
	"testing"
)

// FuzzOneLine checks that oneLine, for text that already is one line
// returned as it is, folds every text exactly as joining its fields does.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb", "a\vb", "a\fb", "a\rb",
		"a\u0085b", "a\u00a0b", "a\u3000b", "a\u2028b", "é ü", "\xff \xfe", "Solid insight. Specific enough to implement."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("oneLine(%q) = %q, want %q", s, got, want)
		}
	})
}
