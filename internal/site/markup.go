package site

import (
	"bytes"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/meshnode/meshnode/internal/trace"
)

// Values a page hands the markdown transformers through parser.Context.
var (
	titleKey = parser.NewContextKey() // string: the page's title, shown as its h1
	indexKey = parser.NewContextKey() // *index: the traces a mention may link to
	rootKey  = parser.NewContextKey() // string: prefix from the page to the site root
)

// pageTransformer fits a trace body to its page, in one walk of the
// tree:
//   - headings sit under the page's own h1: a first heading that only
//     repeats the title is dropped, and when the body still has a level-1
//     heading every heading goes one level down (# becomes h2);
//   - a table's column alignment becomes a class ("align-right"), which
//     the stylesheet honours (the align attribute is obsolete HTML), and
//     the table gets tabindex="0": it scrolls sideways on a phone, and a
//     keyboard user must be able to reach it to scroll it;
//   - every "agent/seq" the text mentions links to the trace it names,
//     when the node knows it: ours to its page, a peer's to its URL. Text
//     inside links and code stays as it is.
type pageTransformer struct{}

func (pageTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	src := reader.Source()
	title, _ := pc.Get(titleKey).(string)
	if h, ok := doc.FirstChild().(*ast.Heading); ok && title != "" &&
		strings.EqualFold(strings.TrimSpace(plainOf(h, src)), strings.TrimSpace(title)) {
		doc.RemoveChild(doc, h)
	}
	var headings []*ast.Heading
	var texts []*ast.Text
	top := false
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Heading:
			headings = append(headings, v)
			top = top || v.Level == 1
		case *extast.Table:
			v.SetAttributeString("tabindex", []byte("0"))
		case *extast.TableCell:
			if v.Alignment != extast.AlignNone {
				v.SetAttributeString("class", []byte("align-"+v.Alignment.String()))
			}
		case *ast.Link, *ast.AutoLink, *ast.CodeSpan, *ast.Image:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			texts = append(texts, v)
		}
		return ast.WalkContinue, nil
	})
	if top && title != "" {
		for _, h := range headings {
			h.Level = min(h.Level+1, 6)
		}
	}
	if idx, _ := pc.Get(indexKey).(*index); idx != nil {
		root, _ := pc.Get(rootKey).(string)
		for _, t := range texts {
			linkMentions(t, src, idx, root)
		}
	}
}

// plainOf is the text of an inline tree, without its markup.
func plainOf(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := c.(type) {
		case *ast.Text:
			b.Write(v.Segment.Value(src))
		case *ast.String:
			b.Write(v.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// mention is one linkable "agent/seq" inside a text segment.
type mention struct {
	start, end  int // byte offsets in the segment
	href, title string
}

// linkMentions splits the text node t around each mention it holds.
func linkMentions(t *ast.Text, src []byte, idx *index, root string) {
	seg := t.Segment
	ms := findMentions(seg.Value(src), idx, root)
	if len(ms) == 0 {
		return
	}
	parent, done := t.Parent(), 0
	for _, m := range ms {
		if m.start > done {
			parent.InsertBefore(parent, t, ast.NewTextSegment(text.NewSegment(seg.Start+done, seg.Start+m.start)))
		}
		link := ast.NewLink()
		link.Destination, link.Title = []byte(m.href), []byte(m.title)
		if isExternal(m.href) {
			link.SetAttributeString("rel", []byte("nofollow ugc noopener"))
		}
		link.AppendChild(link, ast.NewTextSegment(text.NewSegment(seg.Start+m.start, seg.Start+m.end)))
		parent.InsertBefore(parent, t, link)
		done = m.end
	}
	t.Segment = text.NewSegment(seg.Start+done, seg.Stop)
}

// findMentions finds the "agent/seq" words of s that name a trace idx
// knows, by the same rules as trace.FindCitations.
func findMentions(s []byte, idx *index, root string) []mention {
	var out []mention
	for i := 0; i < len(s); i++ {
		if s[i] != '/' || i+1 == len(s) || !isDigitByte(s[i+1]) {
			continue
		}
		start, end := i, i+1
		for start > 0 && isAgentByte(s[start-1]) {
			start--
		}
		for end < len(s) && isDigitByte(s[end]) {
			end++
		}
		i = end
		if start > 0 && strings.IndexByte("/:\\=&?#%~+", s[start-1]) >= 0 {
			continue
		}
		// The two bytes after the digits decide, as for a citation, whether
		// the word ends there: "ada/2." at the end of a sentence does,
		// "ada/2.5" and "ada/2/x" do not.
		cs := trace.FindCitations(s[start:min(len(s), end+2)])
		if len(cs) != 1 {
			continue
		}
		key := citeKey(cs[0].Agent, cs[0].Seq)
		m := mention{start: start, end: end}
		if t, ok := idx.own[key]; ok {
			m.href, m.title = root+pagePath(t.File), t.Title
		} else if r, ok := idx.refs[key]; ok && r.URL != "" && safeURL(r.URL) {
			m.href, m.title = r.URL, r.Title
		} else {
			continue
		}
		out = append(out, m)
	}
	return out
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

func isAgentByte(c byte) bool {
	return isDigitByte(c) || (c|0x20 >= 'a' && c|0x20 <= 'z') || c == '-' || c == '_' || c == '.'
}

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
	var code bytes.Buffer
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		code.Write(seg.Value(src))
	}
	if f, ok := n.(*ast.FencedCodeBlock); ok {
		if out, ok := highlight(string(f.Language(src)), code.String()); ok {
			_, _ = w.Write(out)
			_ = w.WriteByte('\n')
			return ast.WalkSkipChildren, nil
		}
	}
	_, _ = w.WriteString(`<pre tabindex="0"><code>`)
	_, _ = w.Write(util.EscapeHTML(code.Bytes()))
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}

// highlight formats code in the named language, if chroma knows it.
func highlight(language, code string) ([]byte, bool) {
	if language == "" || len(language) > maxLanguageLen || len(code) > maxHighlighted {
		return nil, false
	}
	lexer := lexers.Get(language)
	if lexer == nil {
		return nil, false
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err != nil {
		return nil, false
	}
	var b bytes.Buffer
	if err := codeFormatter.Format(&b, codeStyle, it); err != nil {
		return nil, false
	}
	return b.Bytes(), true
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
