package site

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"
)

// spans are the "class:text" of each span of highlighted HTML.
func spans(h string) []string {
	var out []string
	for _, m := range spanRe.FindAllStringSubmatch(h, -1) {
		out = append(out, m[1]+":"+html.UnescapeString(m[2]))
	}
	return out
}

var (
	spanRe = regexp.MustCompile(`<span class="([a-z0-9]+)">([^<]*)</span>`)
	tagRe  = regexp.MustCompile(`<[^>]*>`)
)

func TestLexerMarksWhatAReaderLooksFor(t *testing.T) {
	for _, tc := range []struct {
		name, lang, code string
		want             []string
	}{
		{"go", "go", "for _, e := range xs[1:] { // all\n\tv := `a\nb` + 'c' + 0x1F\n}\n",
			[]string{"k:for", "k:range", "m:1", "c1:// all", "sb:`a\nb`", "s1:'c'", "m:0x1F"}},
		{"json keys and values", "json", `{"key": "v", "n": 1.5e3, "t": true, "z": null}`,
			[]string{`nt:"key"`, `s2:"v"`, `nt:"n"`, "m:1.5e3", `nt:"t"`, "kc:true", `nt:"z"`, "kc:null"}},
		{"bash", "Bash", "# note\nexport X=\"$HOME\" # tail\nif [ -f a#b ]; then echo $1 ${Y}; fi\n",
			[]string{"c1:# note", "k:export", `s2:"$HOME"`, "c1:# tail", "k:if", "k:then", "nv:$1", "nv:${Y}", "k:fi"}},
		{"yaml", "yml", "key: value # c\n  nested: 'q'\n",
			[]string{"nt:key", "c1:# c", "nt:nested", "s1:'q'"}},
		{"markdown headings", "md", "# Title\n\ntext # not\n## Sub\n", []string{"gh:# Title", "gh:## Sub"}},
		{"typescript", "typescript", "const x: string = 'é' /* a\nb */ + null;\n",
			[]string{"k:const", "kt:string", "s1:'é'", "cm:/* a\nb */", "kc:null"}},
		{"python", "python", "def f(): return None  # why\n", []string{"k:def", "k:return", "kc:None", "c1:# why"}},
		{"unclosed string stops at the line", "js", "x = \"open\ny = 1\n", []string{`s2:"open`, "m:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if !highlight(&b, tc.lang, tc.code) {
				t.Fatal("not highlighted")
			}
			if got := strings.Join(spans(b.String()), "|"); got != strings.Join(tc.want, "|") {
				t.Errorf("spans\n got %s\nwant %s", got, strings.Join(tc.want, "|"))
			}
			if got := html.UnescapeString(tagRe.ReplaceAllString(b.String(), "")); got != tc.code {
				t.Errorf("text %q, want the code %q", got, tc.code)
			}
		})
	}
}

// FuzzLexer: whatever the code, the lexer's HTML holds the code's text
// exactly, escaped, in spans of known classes.
func FuzzLexer(f *testing.F) {
	f.Add("json", `{"a": [1, "<b>", true]}`)
	f.Add("bash", "echo \"$X\" ${Y # z\n'")
	f.Add("go", "/* open `\n\"\\")
	f.Add("yaml", "a: #\n- 'b")
	f.Fuzz(func(t *testing.T, lang, code string) {
		s := syntaxes[strings.ToLower(lang)]
		if s == nil {
			s = &goSyntax
		}
		var b bytes.Buffer
		s.lex(&b, code)
		out := b.String()
		inner := strings.TrimSuffix(strings.TrimPrefix(out, `<pre tabindex="0" class="chroma"><code>`), `</code></pre>`)
		for _, tag := range tagRe.FindAllString(inner, -1) {
			if tag != "</span>" && !regexp.MustCompile(`^<span class="(k|kt|kc|s1|s2|sb|c1|cm|m|nt|nv|gh)">$`).MatchString(tag) {
				t.Fatalf("tag %q in %q", tag, out)
			}
		}
		if got := html.UnescapeString(tagRe.ReplaceAllString(inner, "")); got != code {
			t.Fatalf("text %q, want %q", got, code)
		}
	})
}
