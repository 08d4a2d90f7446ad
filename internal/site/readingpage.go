package site

import "bytes"

// A reading page shows the copy of a peer's trace; a build renders up to
// 3,000 of them, so like the trace page it is written by hand, and
// templates/reading.html stays as its specification:
// TestReadingPageMatchesTemplate renders both on varied and hostile
// copies and wants the same bytes. Change the two together.

// renderReadingPage is the reading page of v.Ref, its copy already
// rendered in v.Body.
func renderReadingPage(buf *bytes.Buffer, v *view) ([]byte, error) {
	return renderPage(buf, v, "website", writeReadingArticle)
}

// writeReadingArticle is the reading page's content.
func writeReadingArticle(w htmlw, v *view) {
	r := v.Ref
	w.WriteString("<article class=\"trace\">\n<header>\n<h1>")
	w.text(r.Title)
	w.WriteString("</h1>\n<p class=\"metaline\">")
	writeAgent(w, v.AgentLink(r.Agent))
	w.WriteString(" · seq ")
	w.int(int(r.Seq))
	if !r.Submitted.IsZero() {
		w.WriteString(" · ")
		w.text(formatDay(r.Submitted))
	}
	w.WriteString(" · ")
	writeStatus(w, string(r.Status))
	w.WriteString(" · ")
	writeRefScore(w, v, r)
	w.WriteString("</p>\n<nav class=\"jump\" aria-label=\"on this page\"><a href=\"#end\">End of the copy</a></nav>\n<p class=\"muted\">A copy ")
	w.text(v.Node.Agent)
	w.WriteString(" keeps of a trace by ")
	w.text(r.Agent)
	if r.Cut {
		w.WriteString(", its first ")
		w.int(v.CopyKiB())
		w.WriteString(" KiB")
	}
	w.WriteString(", shown as ")
	w.text(v.Node.Agent)
	w.WriteString(" shows its own. ")
	if r.URL != "" {
		w.WriteString("The original")
		if r.Cut {
			w.WriteString(", whole,")
		}
		w.WriteString(" is at ")
		writeOffsite(w, r.URL, r.URL)
		w.WriteString("; ")
	}
	w.WriteString("its sha256 is <code class=\"hash\">")
	w.text(string(r.Hash))
	w.WriteString("</code>.</p>\n</header>\n<div class=\"body\">")
	w.WriteString(string(v.Body))
	w.WriteString("</div>\n<p id=\"end\">")
	writeCopyEnd(w, r)
	w.WriteString("</p>\n</article>")
}

// writeCopyEnd says where the copy ends and links the original.
func writeCopyEnd(w htmlw, r *Ref) {
	if r.Cut {
		w.WriteString("<strong>The copy ends here.</strong>")
		if r.URL != "" {
			w.WriteString(" ")
			writeOffsite(w, r.URL, "Read the rest where "+r.Agent+" publishes it.")
		}
		return
	}
	w.WriteString("The end of the copy.")
	if r.URL != "" {
		w.WriteString(" ")
		writeOffsite(w, r.URL, "The original, where "+r.Agent+" publishes it.")
	}
}

// writeOffsite links a peer's URL as a stranger's.
func writeOffsite(w htmlw, href, text string) {
	w.WriteString("<a href=\"")
	w.url(href)
	w.WriteString("\" rel=\"nofollow ugc noopener\">")
	w.text(text)
	w.WriteString("</a>")
}
