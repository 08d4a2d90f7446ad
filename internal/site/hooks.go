package site

// PagePath is the page the site renders for a published file, relative to
// the site root (traces/001-x.md → traces/001-x.html): how a reader of the
// site, such as meshnode verify, finds a trace's page from its MANIFEST row.
func PagePath(file string) string { return pagePath(file) }

// TraceListPage is where page k (from 1) of the list of our traces is,
// relative to the site root.
func TraceListPage(k int) string { return pagedPath("traces/index.html", "traces/pages", k) }
