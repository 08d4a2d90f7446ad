package site

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/meshnode/meshnode/internal/trace"
)

// Values a page hands the markdown transformers through parser.Context.
var (
	titleKey = parser.NewContextKey() // string: the page's title, shown as its h1
	indexKey = parser.NewContextKey() // *index: the traces a mention may link to
	rootKey  = parser.NewContextKey() // string: prefix from the page to the site root
	// sourceKey, set for a peer's text (renderCopy), is the URL the text
	// was published at: relative links resolve against it.
	sourceKey = parser.NewContextKey()
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
//     when the node knows it: ours to its page, a peer's to the page of
//     the copy the node keeps, else to its URL. Text
//     inside links and code stays as it is;
//   - a paragraph of links alone (a "Connections" line of mentions) gets
//     the class "links": its links are whole boxes a line high, so that
//     on a phone, where they wrap under one another, each is a target
//     24 px high (WCAG 2.5.8), which a link inside a sentence need not be.
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
	markLinkParagraphs(doc, src)
}

// markLinkParagraphs gives the class "links" to every paragraph whose
// content is two or more links and blanks between them.
func markLinkParagraphs(doc *ast.Document, src []byte) {
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if p, ok := n.(*ast.Paragraph); ok && onlyLinks(p, src) {
			p.SetAttributeString("class", []byte("links"))
		}
	}
}

// onlyLinks reports whether p holds at least two links and nothing else
// but blanks.
func onlyLinks(p *ast.Paragraph, src []byte) bool {
	links := 0
	for c := p.FirstChild(); c != nil; c = c.NextSibling() {
		switch v := c.(type) {
		case *ast.Link, *ast.AutoLink:
			links++
		case *ast.Text:
			if len(bytes.TrimSpace(v.Segment.Value(src))) > 0 {
				return false
			}
		default:
			return false
		}
	}
	return links >= 2
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
		} else if r, ok := idx.refs[key]; ok && (r.Read != "" || r.Page != "") {
			m.href, m.title = r.Href(root), r.Title
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
