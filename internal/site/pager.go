package site

import "fmt"

// tracesPerPage is how many rows a page of the traces list holds: 10,000
// traces on one page made a 3.5 MB page no phone wants to load.
const tracesPerPage = 100

// pager is one page of the traces list, newest first: page 1 is
// traces/index.html, page k is traces/pages/k.html (a directory of its
// own, so that no trace file's page can take its name).
type pager struct {
	Path                string
	Number, Count       int      // this page's number, and how many pages there are
	First, Total        int      // the 1-based position of the first row, and all traces
	Traces              []*Trace // this page's rows
	Newer, Older, Index string   // hrefs relative to this page; empty at the ends
}

// tracePages splits n.Traces into pages of tracesPerPage; a node without
// traces still has one, empty, page 1.
func tracePages(n *Node) []*pager {
	count := max(1, (len(n.Traces)+tracesPerPage-1)/tracesPerPage)
	pages := make([]*pager, count)
	for i := range pages {
		lo, hi := i*tracesPerPage, min(len(n.Traces), (i+1)*tracesPerPage)
		pages[i] = &pager{Path: tracePagePath(i + 1), Number: i + 1, Count: count, First: lo + 1, Total: len(n.Traces), Traces: n.Traces[lo:hi]}
	}
	for i, p := range pages {
		root := rootOf(p.Path)
		p.Index = root + "traces/index.html"
		if i > 0 {
			p.Newer = root + pages[i-1].Path
		}
		if i+1 < len(pages) {
			p.Older = root + pages[i+1].Path
		}
	}
	return pages
}

// tracePagePath is where page k of the traces list is.
func tracePagePath(k int) string {
	if k == 1 {
		return "traces/index.html"
	}
	return fmt.Sprintf("traces/pages/%d.html", k)
}

// Last is the 1-based position of the page's last row.
func (p *pager) Last() int { return p.First + len(p.Traces) - 1 }

func (p *pager) title() string {
	if p.Number == 1 {
		return "Traces"
	}
	return fmt.Sprintf("Traces, page %d of %d", p.Number, p.Count)
}

func (p *pager) descSuffix() string {
	if p.Count == 1 {
		return "."
	}
	return fmt.Sprintf(": page %d of %d.", p.Number, p.Count)
}
