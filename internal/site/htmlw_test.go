package site

import (
	"bytes"
	"html/template"
	"testing"
)

// escapeProbe puts one value in each context htmlw writes: text, a quoted
// attribute, the start of a URL attribute and a value right after another
// in one. (After literal text, such as "../", html/template no longer
// checks the scheme; htmlw has no writer for that context.)
var escapeProbe = template.Must(template.New("").Parse(`<p title="{{.}}">{{.}}</p><a href="{{.}}">x</a><a href="{{.}}{{.}}">z</a>`))

// FuzzHTMLWMatchesTemplate checks that htmlw escapes any string as
// html/template does in the same contexts.
func FuzzHTMLWMatchesTemplate(f *testing.F) {
	for _, s := range []string{"", "plain", `<script>alert("x")</script>`, "a'b\"c&d+e", "nul\x00", "bad\xff", "javascript:x", "http://x.org/a b?c#d", "x/y:z", "\ufdd0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		if err := escapeProbe.Execute(&want, s); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		w := htmlw{&got}
		w.WriteString(`<p title="`)
		w.text(s)
		w.WriteString(`">`)
		w.text(s)
		w.WriteString(`</p><a href="`)
		w.url(s)
		w.WriteString(`">x</a><a href="`)
		w.url(s)
		w.url(s)
		w.WriteString(`">z</a>`)
		if got.String() != want.String() {
			t.Errorf("htmlw wrote\n%q\nhtml/template\n%q", got.String(), want.String())
		}
	})
}
