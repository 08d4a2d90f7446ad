package site

import "fmt"

// perPage is how many rows a page of a paged list holds: 10,000 traces on
// one page made a 3.5 MB page no phone wants to load.
const perPage = 100

// meshPerPage is how many rows a page of the mesh's traces holds: each
// row carries an excerpt, and 100 of them made a page of 29,000 px on a
// phone, past the browser test's bound (docs/site.md).
const meshPerPage = 50

// pager is one page of a paged list, newest first: our traces
// (traces/index.html, then traces/pages/k.html: a directory of its own, so
// that no trace file's page can take its name), the mesh's traces
// (mesh/index.html, mesh/pages/k.html) or the validations we gave
// (validations.html, validations/pages/k.html). Every page links every
// other, so any row is two clicks from the list's first page.
type pager struct {
	Path                string
	Number, Count       int // this page's number, and how many pages there are
	First, Total        int // the 1-based position of the first row, and all rows
	Rows                int // rows on this page
	Newer, Older, Index string
	Pages               []pageLink // every page of the list, in order
	Label               string     // what the list holds, for the navigation's name
	Traces              []*Trace   // this page's rows, in a list of our traces
	Refs                []*Ref     // in a list of the mesh's traces
	Votes               []*Vote    // in a list of our validations
}

// pageLink is one page of a list as the navigation names it.
type pageLink struct {
	Number  int
	Href    string // relative to the page the link is on
	Current bool
}

// paginate splits total rows into pages of per rows, page k at
// pathOf(k); an empty list still has one, empty, page 1. Each page's rows
// are [First-1, First-1+Rows).
func paginate(total, per int, label string, pathOf func(k int) string) []*pager {
	count := max(1, (total+per-1)/per)
	pages := make([]*pager, count)
	for i := range pages {
		lo, hi := i*per, min(total, (i+1)*per)
		pages[i] = &pager{Path: pathOf(i + 1), Number: i + 1, Count: count, First: lo + 1, Total: total, Rows: hi - lo, Label: label}
	}
	for i, p := range pages {
		root := rootOf(p.Path)
		p.Index = root + pages[0].Path
		if i > 0 {
			p.Newer = root + pages[i-1].Path
		}
		if i+1 < len(pages) {
			p.Older = root + pages[i+1].Path
		}
		if count > 1 {
			p.Pages = make([]pageLink, count)
			for j, q := range pages {
				p.Pages[j] = pageLink{Number: j + 1, Href: root + q.Path, Current: i == j}
			}
		}
	}
	return pages
}

// tracePages splits n.Traces into pages.
func tracePages(n *Node) []*pager {
	pages := paginate(len(n.Traces), perPage, "traces", func(k int) string { return pagedPath("traces/index.html", "traces/pages", k) })
	for _, p := range pages {
		p.Traces = n.Traces[p.First-1 : p.First-1+p.Rows]
	}
	return pages
}

// meshPages splits the peers' traces, newest first, into pages.
func meshPages(refs []*Ref) []*pager {
	pages := paginate(len(refs), meshPerPage, "the mesh's traces", func(k int) string { return pagedPath(meshDir+"/index.html", meshDir+"/pages", k) })
	for _, p := range pages {
		p.Refs = refs[p.First-1 : p.First-1+p.Rows]
	}
	return pages
}

// votePages splits the validations we gave into pages.
func votePages(votes []*Vote) []*pager {
	pages := paginate(len(votes), perPage, "validations given", func(k int) string { return pagedPath("validations.html", validationsDir+"/pages", k) })
	for _, p := range pages {
		p.Votes = votes[p.First-1 : p.First-1+p.Rows]
	}
	return pages
}

// meshDir holds the paged list of every trace of the mesh's other agents.
const meshDir = "mesh"

// pagedPath is where page k of a list is: the first at first, the others
// in dir.
func pagedPath(first, dir string, k int) string {
	if k == 1 {
		return first
	}
	return fmt.Sprintf("%s/%d.html", dir, k)
}

// Last is the 1-based position of the page's last row.
func (p *pager) Last() int { return p.First + p.Rows - 1 }

// titled is a list's title with its page number after the first page.
func (p *pager) titled(title string) string {
	if p.Number == 1 {
		return title
	}
	return fmt.Sprintf("%s, page %d of %d", title, p.Number, p.Count)
}

func (p *pager) descSuffix() string {
	if p.Count == 1 {
		return "."
	}
	return fmt.Sprintf(": page %d of %d.", p.Number, p.Count)
}
