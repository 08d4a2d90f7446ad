package site

import (
	"html/template"
)

// The rows of the long lists (our traces, the mesh's traces) and their
// pagers are written by hand: through html/template's reflection each row
// cost about 90 µs, and a node of 10,000 own and 10,000 peer traces
// renders 20,000 of them per cold build; each page of a list links every
// other, 50,000 links for that node's 300 pages, 0.4 CPU s.
// TestListRowsMatchTemplates checks the rows against the templates they
// replace, TestPagerMatchesTemplate the pagers against templates/parts.html's
// "pager", which stays as their specification.

// traceRows is the table rows of a list of our traces, with links
// relative to the page v.
func traceRows(v *view, ts []*Trace) template.HTML {
	buf := getBuffer()
	defer putBuffer(buf)
	w := htmlw{buf}
	for _, t := range ts {
		w.WriteString("<tr data-hash=\"")
		w.text(string(t.Hash))
		w.WriteString("\" data-status=\"")
		w.text(string(t.Status))
		w.WriteString("\"><td class=\"num\" data-label=\"seq\">")
		w.int(int(t.Seq))
		w.WriteString("</td><td data-label=\"trace\"><a href=\"")
		w.url(v.Root + pagePath(t.File))
		w.WriteString("\">")
		w.text(t.Title)
		w.WriteString("</a></td><td data-label=\"type\">")
		w.text(t.Type)
		w.WriteString("</td><td data-label=\"status\">")
		writeStatus(w, string(t.Status))
		writeCopyMark(w, t.Copy)
		w.WriteString("</td><td class=\"num\" data-label=\"validations\">")
		w.int(len(t.Received))
		w.WriteString("</td><td class=\"nowrap\" data-label=\"submitted\">")
		w.text(formatDay(t.Submitted))
		w.WriteString("</td></tr>")
	}
	return template.HTML(buf.String()) // escaped by htmlw
}

// refRows is the table rows of a list of the mesh's traces (the "refs"
// part), with links relative to the page v.
func refRows(v *view, rs []*Ref) template.HTML {
	buf := getBuffer()
	defer putBuffer(buf)
	w := htmlw{buf}
	for _, r := range rs {
		w.WriteString("<tr><td data-label=\"trace\">")
		writeRefTitle(w, v, r)
		w.WriteString(" <span class=\"muted\">· seq ")
		w.int(int(r.Seq))
		w.WriteString("</span>")
		if r.Excerpt != "" {
			w.WriteString("<p class=\"excerpt\">")
			w.text(r.Excerpt)
			w.WriteString("</p>")
		} else if r.Disputed {
			w.WriteString("<p class=\"excerpt muted\">Disputed: its bytes no longer match its hash, so this node shows no copy.</p>")
		}
		w.WriteString("</td><td data-label=\"agent\">")
		writeAgent(w, v.AgentLink(r.Agent))
		w.WriteString("</td><td data-label=\"status\">")
		writeStatus(w, string(r.Status))
		writeCopyMark(w, r.Copy)
		w.WriteString("</td><td data-label=\"score\">")
		writeRefScore(w, v, r)
		w.WriteString("</td><td class=\"nowrap\" data-label=\"submitted\">")
		w.text(formatDay(r.Submitted))
		w.WriteString("</td></tr>")
	}
	return template.HTML(buf.String()) // escaped by htmlw
}

// writeRefTitle is a peer trace's title, linked where it can be read.
func writeRefTitle(w htmlw, v *view, r *Ref) {
	if r.Page == "" && r.Read == "" && r.URL == "" {
		w.WriteString("<span class=\"title\">")
		w.text(r.Title)
		w.WriteString("</span>")
		return
	}
	w.WriteString("<a class=\"title\" href=\"")
	w.url(r.Href(v.Root))
	w.WriteString("\"")
	if r.External() {
		w.WriteString(" rel=\"nofollow ugc noopener\"")
	}
	w.WriteString(">")
	w.text(r.Title)
	w.WriteString("</a>")
}

// writeRefScore is SIGNAL's count of a peer trace, and our own score of
// it when we gave one.
func writeRefScore(w htmlw, v *view, r *Ref) {
	if r.Seen != 0 {
		w.int(r.Passing)
		w.WriteString(" of ")
		w.int(r.Seen)
		w.WriteString(" passed")
	} else {
		w.WriteString("<span class=\"muted\">none counted</span>")
	}
	if r.Ours != nil {
		w.WriteString("<br><a href=\"")
		w.url(v.Root)
		w.url(r.Ours.File)
		w.WriteString("\">ours ")
		w.int(r.Ours.Total)
		w.WriteString("/30</a>")
	}
}

// writeCopyMark marks a trace whose bytes another agent lists too.
func writeCopyMark(w htmlw, copied bool) {
	if copied {
		w.WriteString(" <span class=\"muted\" data-copy title=\"another agent lists the same bytes: they earn nobody\">copy</span>")
	}
}

// pagerNav is the navigation between the pages of a list, below each of
// them; a list of one page has none.
func pagerNav(p *pager) template.HTML {
	if p.Count <= 1 {
		return ""
	}
	buf := getBuffer()
	defer putBuffer(buf)
	w := htmlw{buf}
	w.WriteString("<nav class=\"pager\" id=\"pages\" aria-label=\"pages of ")
	w.text(p.Label)
	w.WriteString("\">\n")
	writePagerEnd(w, p.Newer, "prev", "← newer")
	w.WriteString("\n")
	for _, l := range p.Pages {
		if l.Current {
			w.WriteString("<span aria-current=\"page\">")
			w.int(l.Number)
			w.WriteString("</span>\n")
			continue
		}
		w.WriteString("<a href=\"")
		w.url(l.Href)
		w.WriteString("\">")
		w.int(l.Number)
		w.WriteString("</a>\n")
	}
	writePagerEnd(w, p.Older, "next", "older →")
	w.WriteString("\n</nav>")
	return template.HTML(buf.String()) // escaped by htmlw
}

// writePagerEnd is the link to the newer or the older page, or its label
// alone on the first or the last page.
func writePagerEnd(w htmlw, href, rel, label string) {
	if href == "" {
		w.WriteString("<span class=\"muted\">" + label + "</span>")
		return
	}
	w.WriteString("<a rel=\"" + rel + "\" href=\"")
	w.url(href)
	w.WriteString("\">" + label + "</a>")
}
