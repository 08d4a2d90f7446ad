package site

import (
	"bytes"
	"fmt"
	"html/template"
	"net/url"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown is the one goldmark instance every trace goes through: an
// explicit extension list and raw HTML off (html.WithUnsafe is never set),
// so "<script>" in a trace becomes an HTML comment saying it was omitted.
// Tables align their cells by class, never by the obsolete align
// attribute or an inline style, and mentions of traces become links
// (pageTransformer); code is highlighted by codeRenderer.
var markdown = goldmark.New(
	goldmark.WithExtensions(
		extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignNone)),
		extension.Strikethrough,
		extension.Linkify,
		extension.TaskList,
		extension.Footnote,
	),
	goldmark.WithParserOptions(
		parser.WithAutoHeadingID(),
		parser.WithASTTransformers(
			util.Prioritized(linkFilter{}, 0),
			util.Prioritized(pageTransformer{}, 10),
		),
	),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(codeRenderer{}, 100))),
)

// renderMarkdown renders a markdown body to HTML that is safe to inline.
func renderMarkdown(src []byte) (template.HTML, error) {
	return renderTrace(src, "", nil, "")
}

// renderTrace renders a trace body for its page: a first heading that
// repeats the title is dropped (the page's h1 is the title), and mentions
// of traces idx knows link to them (ours by root + page path).
func renderTrace(src []byte, title string, idx *index, root string) (template.HTML, error) {
	return renderBody(src, title, idx, root, "")
}

// renderCopy renders the copy of a peer's trace for its reading page, as
// renderTrace does, and as a stranger's text: relative links resolve
// against source, the trace's own URL (and are dropped when it is not an
// http or https URL), every link gets rel="nofollow ugc noopener", and
// images show their alt text, so a reading page makes no request off
// the site.
func renderCopy(src []byte, title string, idx *index, root, source string) (template.HTML, error) {
	if !linkable(source) {
		source = "-" // not a base: relative links are dropped
	}
	return renderBody(src, title, idx, root, source)
}

func renderBody(src []byte, title string, idx *index, root, source string) (template.HTML, error) {
	pc := parser.NewContext(parser.WithIDs(letterIDs{parser.NewContext().IDs()}))
	pc.Set(titleKey, title)
	pc.Set(indexKey, idx)
	pc.Set(rootKey, root)
	if source != "" {
		pc.Set(sourceKey, source)
	}
	buf := getBuffer()
	defer putBuffer(buf)
	// goldmark wraps a writer that is not a bufio.Writer in a new one of
	// 4 kB per document: a twentieth of what a cold build allocated.
	w := getBufWriter(buf)
	defer putBufWriter(w)
	if err := markdown.Convert(src, w, parser.WithContext(pc)); err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	if err := w.Flush(); err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	// goldmark's output: raw HTML off, links filtered.
	return template.HTML(trimLineEnds(buf.Bytes())), nil
}

// safeURL reports whether a link or image destination may reach a page:
// http, https, mailto, or a relative reference. Everything else
// (javascript:, vbscript:, data:, file:, unknown schemes) is dropped,
// because traces come from strangers.
func safeURL(dest string) bool {
	// Browsers ignore tabs, newlines and leading spaces in a scheme
	// ("java\tscript:"), so judge the URL the way a browser reads it.
	cleaned := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.TrimSpace(dest))
	u, err := url.Parse(cleaned)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "mailto":
		return true
	case "":
		// "//host/x" is protocol-relative: fine. A colon before any slash
		// that url.Parse did not see as a scheme is not.
		first := strings.IndexAny(cleaned, "/?#")
		colon := strings.IndexByte(cleaned, ':')
		return colon < 0 || (first >= 0 && first < colon)
	}
	return false
}

// linkFilter removes unsafe links and images from the tree before
// rendering: a link keeps its text, an image keeps its alt text. Kept
// external links get rel="nofollow ugc noopener".
type linkFilter struct{}

func (linkFilter) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	source, _ := pc.Get(sourceKey).(string)
	var unsafe []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Link:
			if !safeURL(string(v.Destination)) {
				unsafe = append(unsafe, n)
			} else if source != "" {
				if !resolveAgainst(v, source) {
					unsafe = append(unsafe, n)
				}
			} else if isExternal(string(v.Destination)) {
				v.SetAttributeString("rel", []byte("nofollow ugc noopener"))
			}
		case *ast.Image:
			if source != "" || !safeURL(string(v.Destination)) {
				unsafe = append(unsafe, n)
			}
		case *ast.AutoLink:
			if u := string(v.URL(reader.Source())); !safeURL(u) {
				unsafe = append(unsafe, n)
			} else if v.AutoLinkType == ast.AutoLinkURL {
				v.SetAttributeString("rel", []byte("nofollow ugc noopener"))
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range unsafe {
		unwrap(n, reader.Source())
	}
}

// resolveAgainst points a link of a peer's text at what it names where
// the text was published: a relative destination resolves against
// source, a link to a fragment of the text included (the reading page
// shows the text under its own headings, whose ids need not match the
// original's). It reports false when the link cannot be resolved and
// must go.
func resolveAgainst(l *ast.Link, source string) bool {
	dest := strings.TrimSpace(string(l.Destination))
	if !isExternal(dest) && !strings.HasPrefix(strings.ToLower(dest), "mailto:") {
		base, err := url.Parse(source)
		ref, rerr := url.Parse(dest)
		if err != nil || rerr != nil || source == "-" {
			return false
		}
		dest = base.ResolveReference(ref).String()
		l.Destination = []byte(dest)
	}
	l.SetAttributeString("rel", []byte("nofollow ugc noopener"))
	return true
}

// unwrap replaces n by its children (a link's text, an image's alt text),
// or by the literal text of an autolink.
func unwrap(n ast.Node, source []byte) {
	parent := n.Parent()
	if parent == nil {
		return
	}
	if a, ok := n.(*ast.AutoLink); ok {
		parent.ReplaceChild(parent, n, ast.NewString(a.Label(source)))
		return
	}
	for c := n.FirstChild(); c != nil; {
		next := c.NextSibling()
		parent.InsertBefore(parent, n, c)
		c = next
	}
	parent.RemoveChild(parent, n)
}

func isExternal(dest string) bool {
	d := strings.ToLower(strings.TrimSpace(dest))
	return strings.HasPrefix(d, "http:") || strings.HasPrefix(d, "https:") || strings.HasPrefix(d, "//")
}

// letterIDs gives headings goldmark's ids, each beginning with a letter:
// goldmark makes "1-protocols" of a heading "1. Protocols", which HTML 4
// and html-validate's valid-id rule refuse. Such an id gets "h-" before
// it.
type letterIDs struct{ parser.IDs }

// Generate is goldmark's id for value, made to begin with a letter.
func (l letterIDs) Generate(value []byte, kind ast.NodeKind) []byte {
	id := l.IDs.Generate(value, kind)
	if len(id) > 0 && 'a' <= id[0] && id[0] <= 'z' {
		return id
	}
	id = append([]byte("h-"), id...)
	l.IDs.Put(id)
	return id
}

// trimLineEnds returns html, as a string, without the spaces and tabs
// that end its lines: a trace's text may end lines with them (in code,
// or lines of blanks), which show as nothing and which html-validate's
// no-trailing-whitespace rule refuses. Made a string here, it is copied
// once, not once into bytes and again into the page's string.
func trimLineEnds(html []byte) string {
	var out strings.Builder
	out.Grow(len(html))
	for len(html) > 0 {
		line, rest, found := bytes.Cut(html, []byte("\n"))
		out.Write(bytes.TrimRight(line, " \t"))
		if found {
			out.WriteByte('\n')
		}
		html = rest
	}
	return out.String()
}
