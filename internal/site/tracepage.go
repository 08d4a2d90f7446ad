package site

import (
	"bytes"
	"fmt"
	"path"
	"strconv"

	"github.com/meshnode/meshnode/internal/validation"
)

// A trace page is the one page a build renders once per trace, so it is
// written by hand (htmlw) rather than by templates/trace.html, which stays
// as its specification: TestTracePageMatchesTemplate renders both on
// varied and hostile traces and wants the same bytes. Change the two
// together. Reading pages (readingpage.go) share the page around the
// article with it.

// renderTracePage is the trace page of v.Trace, its body already
// rendered in v.Body.
func renderTracePage(buf *bytes.Buffer, v *view) ([]byte, error) {
	return renderPage(buf, v, "article", writeTraceArticle)
}

// renderPage is templates/layout.html's "layout" for a page of og:type
// ogType whose content article writes (a view with no Agent: the layout's
// link to an agent's feed is left out).
func renderPage(buf *bytes.Buffer, v *view, ogType string, article func(htmlw, *view)) ([]byte, error) {
	c, err := v.Chrome()
	if err != nil {
		return nil, fmt.Errorf("render page: %w", err)
	}
	buf.Reset()
	w := htmlw{buf}
	w.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n<title>")
	w.text(headTitle(v.Title, v.Node.Agent))
	w.WriteString("</title>\n<meta name=\"description\" content=\"")
	w.text(v.Desc)
	w.WriteString("\">\n<meta property=\"og:type\" content=\"")
	w.WriteString(ogType)
	w.WriteString("\">\n<meta property=\"og:title\" content=\"")
	w.text(v.Title)
	w.WriteString("\">\n<meta property=\"og:description\" content=\"")
	w.text(v.Desc)
	w.WriteString("\">\n<meta property=\"og:site_name\" content=\"")
	w.text(v.Node.Agent)
	w.WriteString("\">\n")
	if v.Canonical != "" {
		w.WriteString("<meta property=\"og:url\" content=\"")
		w.text(v.Canonical)
		w.WriteString("\">\n<link rel=\"canonical\" href=\"")
		w.url(v.Canonical)
		w.WriteString("\">\n")
	}
	w.WriteString(string(c.Links))
	w.WriteString("</head>\n<body>\n")
	w.WriteString(string(c.Header))
	w.WriteString("<main>\n\n\n")
	article(w, v)
	w.WriteString("\n\n\n</main>\n")
	w.WriteString(string(c.Footer))
	w.WriteString("</body>\n</html>\n")
	return buf.Bytes(), nil
}

// writeTraceArticle is the trace page's content: the article, its
// neighbours, the validations it received and its citations.
func writeTraceArticle(w htmlw, v *view) {
	t := v.Trace
	w.WriteString("<article class=\"trace\" data-hash=\"")
	w.text(string(t.Hash))
	w.WriteString("\" data-status=\"")
	w.text(string(t.Status))
	w.WriteString("\">\n<header>\n<h1>")
	w.text(t.Title)
	w.WriteString("</h1>\n")
	writeTraceMetaline(w, v)
	writeTraceMeta(w, t)
	w.WriteString("<div class=\"body\">")
	w.WriteString(string(v.Body))
	w.WriteString("</div>\n</article>\n")
	writePrevNext(w, v)
	w.WriteString("\n<section>\n<h2>Validations received</h2>\n")
	if len(t.Received) > 0 {
		writeScores(w, v, t.Received)
	} else {
		w.WriteString("<p class=\"muted\">No validations yet: the trace is ")
		w.text(string(t.Status))
		w.WriteString(".</p>")
	}
	w.WriteString("\n</section>\n<section class=\"cites\">\n<h2>Citations</h2>\n<div class=\"two\">\n<div><h3>Cites</h3>")
	writeRefList(w, v.Refs(t.Cites))
	w.WriteString("</div>\n<div><h3>Cited by</h3>")
	writeRefList(w, v.Refs(t.CitedBy))
	w.WriteString("</div>\n</div>\n</section>")
}

// writeTraceMetaline is the line under the title: agent, seq, day,
// status, SIGNAL's count, type and the markdown link.
func writeTraceMetaline(w htmlw, v *view) {
	t := v.Trace
	w.WriteString("<p class=\"metaline\">")
	writeAgent(w, v.AgentLink(v.Node.Agent))
	w.WriteString(" · seq ")
	w.int(int(t.Seq))
	if !t.Submitted.IsZero() {
		w.WriteString(" · ")
		w.text(formatDay(t.Submitted))
	}
	w.WriteString(" · ")
	writeStatus(w, string(t.Status))
	writeCopyMark(w, t.Copy)
	if t.Seen != 0 {
		w.WriteString(" <span class=\"muted\">")
		w.int(t.Passing)
		w.WriteString(" of ")
		w.int(t.Seen)
		w.WriteString(" passing</span>")
	}
	w.WriteString(" · ")
	if t.Type != "" {
		w.text(t.Type)
	} else {
		w.WriteString("trace")
	}
	if t.Category != "" {
		w.WriteString(" · ")
		w.text(t.Category)
	}
	w.WriteString(" · <a href=\"")
	w.url(path.Base(t.File))
	w.WriteString("\">markdown</a></p>\n")
}

// writeTraceMeta is the folded hash and metadata list.
func writeTraceMeta(w htmlw, t *Trace) {
	w.WriteString("<details class=\"more\">\n<summary>Hash and metadata</summary>\n<dl class=\"meta\">\n<dt>sha256</dt><dd><code class=\"hash\">")
	w.text(string(t.Hash))
	w.WriteString("</code></dd>\n<dt>file</dt><dd><a href=\"")
	w.url(path.Base(t.File))
	w.WriteString("\">")
	w.text(path.Base(t.File))
	w.WriteString("</a> (the exact bytes peers verify)</dd>\n")
	if !t.Submitted.IsZero() {
		w.WriteString("<dt>submitted</dt><dd>")
		w.text(formatDate(t.Submitted))
		w.WriteString("</dd>")
	}
	w.WriteString("\n")
	if len(t.Tags) > 0 {
		w.WriteString("<dt>tags</dt><dd>")
		for i, tag := range t.Tags {
			if i > 0 {
				w.WriteString(", ")
			}
			w.text(tag)
		}
		w.WriteString("</dd>")
	}
	w.WriteString("\n")
	for _, f := range t.Meta {
		w.WriteString("<dt>")
		w.text(f.Name)
		w.WriteString("</dt><dd>")
		w.text(f.Value)
		w.WriteString("</dd>")
	}
	w.WriteString("\n</dl>\n</details>\n</header>\n")
}

// writePrevNext links the same agent's previous and next traces.
func writePrevNext(w htmlw, v *view) {
	if v.Prev == nil && v.Next == nil {
		return
	}
	w.WriteString("<nav class=\"prevnext\" aria-label=\"")
	w.text(v.Node.Agent)
	w.WriteString("'s other traces\">\n")
	if v.Prev != nil {
		w.WriteString("<a rel=\"prev\" href=\"")
		w.url(v.Root + pagePath(v.Prev.File))
		w.WriteString("\"><span class=\"muted\">← previous</span> ")
		w.text(v.Prev.Title)
		w.WriteString("</a>")
	} else {
		w.WriteString("<span></span>")
	}
	w.WriteString("\n")
	if v.Next != nil {
		w.WriteString("<a rel=\"next\" class=\"next\" href=\"")
		w.url(v.Root + pagePath(v.Next.File))
		w.WriteString("\"><span class=\"muted\">next →</span> ")
		w.text(v.Next.Title)
		w.WriteString("</a>")
	}
	w.WriteString("\n</nav>")
}

// writeScores is the table of the validations a trace received (the
// "scores" part).
func writeScores(w htmlw, v *view, votes []*Vote) {
	w.WriteString("<section class=\"scroll\" tabindex=\"0\" aria-label=\"validations received\"><table class=\"scores cards\">\n<thead><tr><th>validator</th><th>result</th><th>total</th>")
	for _, d := range validation.Dimensions {
		w.WriteString("<th>")
		w.text(d)
		w.WriteString("</th>")
	}
	w.WriteString("<th>when</th></tr></thead>\n<tbody>")
	for _, vote := range votes {
		w.WriteString("<tr>\n<td data-label=\"validator\">")
		writeAgent(w, v.AgentLink(vote.Validator))
		w.WriteString("</td>\n<td data-label=\"result\">")
		writeStatus(w, vote.Result)
		w.WriteString("</td><td class=\"num\" data-label=\"total\">")
		w.int(vote.Total)
		w.WriteString("/30</td>\n")
		writeScoreCells(w, vote)
		w.WriteString("\n<td class=\"nowrap\" data-label=\"when\">")
		w.text(formatDated(vote.ValidatedAt))
		w.WriteString("</td></tr>")
	}
	w.WriteString("</tbody>\n</table></section>")
}

// writeScoreCells is a vote's six scores, or dashes when it gave none.
func writeScoreCells(w htmlw, vote *Vote) {
	for i, d := range validation.Dimensions {
		if !vote.HasScores {
			w.WriteString("<td class=\"num muted\" data-label=\"")
			w.text(d)
			w.WriteString("\">–</td>")
			continue
		}
		s := strconv.Itoa(vote.Scores[i])
		w.WriteString("<td class=\"num\" data-label=\"")
		w.text(d)
		w.WriteString("\"><span class=\"score score-")
		w.text(s)
		w.WriteString("\">")
		w.text(s)
		w.WriteString("</span></td>")
	}
}

// writeAgent names an agent, linked to its page when it has one (the
// "agent" part).
func writeAgent(w htmlw, a agentRef) {
	if a.Href == "" {
		w.text(a.Name)
		return
	}
	w.WriteString("<a href=\"")
	w.url(a.Href)
	w.WriteString("\">")
	w.text(a.Name)
	w.WriteString("</a>")
}

// writeStatus is a status badge (the "status" part).
func writeStatus(w htmlw, status string) {
	w.WriteString("<span class=\"status status-")
	w.text(statusClass(status))
	w.WriteString("\">")
	w.text(status)
	w.WriteString("</span>")
}

// writeRefList is a list of citations (the "reflist" part).
func writeRefList(w htmlw, refs []refLink) {
	if len(refs) == 0 {
		w.WriteString("<p class=\"muted\">none</p>")
		return
	}
	w.WriteString("<ul class=\"plain\">")
	for _, r := range refs {
		w.WriteString("<li>")
		if r.Href != "" {
			w.WriteString("<a href=\"")
			w.url(r.Href)
			w.WriteString("\"")
			if r.External {
				w.WriteString(" rel=\"nofollow ugc noopener\"")
			}
			w.WriteString(">")
			w.text(r.Label)
			w.WriteString("</a>")
		} else {
			w.text(r.Label)
		}
		if r.Title != "" {
			w.WriteString(" — ")
			w.text(r.Title)
		}
		w.WriteString("</li>")
	}
	w.WriteString("</ul>")
}
