package site

// PagePath is the page the site renders for a published file, relative to
// the site root (traces/001-x.md → traces/001-x.html): how a reader of the
// site, such as meshnode verify, finds a trace's page from its MANIFEST row.
func PagePath(file string) string { return pagePath(file) }
