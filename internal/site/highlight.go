package site

import (
	"bytes"
	"io"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// Code blocks are highlighted when the page is built, by chroma, into
// CSS classes (the stylesheet carries the colours of codeStyle and
// codeStyleDark); the site runs no script. The two styles are the Modus
// themes, made for WCAG AAA contrast.
var (
	codeStyle      = styles.Get("modus-operandi")
	codeStyleDark  = styles.Get("modus-vivendi")
	codeFormatter  = chromahtml.New(chromahtml.WithClasses(true), chromahtml.WithPreWrapper(focusablePre{}))
	maxLanguageLen = 40
	// maxHighlighted is the largest code block highlighted, in bytes.
	// chroma's lexers run regexp2 at about 3 µs a byte, with a 250 ms
	// timeout per match: a stranger's megabyte of code would hold a build
	// for seconds, so a block over this is shown plain.
	maxHighlighted = 16 << 10
)

// focusablePre is chroma's <pre> with tabindex="0": a long line scrolls
// sideways, and a keyboard user must be able to reach it to scroll it.
type focusablePre struct{}

func (focusablePre) Start(code bool, styleAttr string) string {
	if code {
		return `<pre tabindex="0"` + styleAttr + `><code>`
	}
	return `<pre tabindex="0"` + styleAttr + `>`
}

func (focusablePre) End(code bool) string {
	if code {
		return `</code></pre>`
	}
	return `</pre>`
}

// codeCSS is the stylesheet of highlighted code, light and dark.
func codeCSS() []byte {
	var b bytes.Buffer
	b.WriteString("/* Code highlighting: chroma's modus-operandi, and modus-vivendi in the dark. */\n")
	_ = codeFormatter.WriteCSS(&b, codeStyle)
	b.WriteString("@media (prefers-color-scheme: dark) {\n")
	_ = codeFormatter.WriteCSS(&b, codeStyleDark)
	b.WriteString("}\n")
	return b.Bytes()
}

// codeRenderer renders code blocks (highlighted when their language is
// one chroma knows) and task-list check boxes (labelled, for screen
// readers).
type codeRenderer struct{}

func (codeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderCode)
	reg.Register(ast.KindCodeBlock, renderCode)
	reg.Register(extast.KindTaskCheckBox, renderCheckBox)
}

func renderCode(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	code := getBuffer()
	defer putBuffer(code)
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		code.Write(seg.Value(src))
	}
	if f, ok := n.(*ast.FencedCodeBlock); ok {
		if highlight(w, string(f.Language(src)), code.String()) {
			_ = w.WriteByte('\n')
			return ast.WalkSkipChildren, nil
		}
	}
	_, _ = w.WriteString(`<pre tabindex="0"><code>`)
	_, _ = w.Write(util.EscapeHTML(code.Bytes()))
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}

// highlight writes code formatted in the named language to w, if the
// site's lexer (lexer.go) or chroma knows the language, and reports whether it did; when it did not, it
// wrote nothing.
func highlight(w io.Writer, language, code string) bool {
	if language == "" || len(language) > maxLanguageLen || len(code) > maxHighlighted {
		return false
	}
	if s := syntaxes[strings.ToLower(language)]; s != nil {
		b := getBuffer()
		defer putBuffer(b)
		s.lex(b, code)
		_, _ = w.Write(b.Bytes())
		return true
	}
	lexer := lexers.Get(language)
	if lexer == nil {
		return false
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err != nil {
		return false
	}
	b := getBuffer()
	defer putBuffer(b)
	if err := codeFormatter.Format(b, codeStyle, it); err != nil {
		return false
	}
	_, _ = w.Write(b.Bytes())
	return true
}

func renderCheckBox(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	if n.(*extast.TaskCheckBox).IsChecked {
		_, _ = w.WriteString(`<input type="checkbox" checked disabled aria-label="done"> `)
	} else {
		_, _ = w.WriteString(`<input type="checkbox" disabled aria-label="not done"> `)
	}
	return ast.WalkContinue, nil
}
