package publish

import (
	"sort"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// Sizes of MANIFEST.md and its archive pages (docs/decisions.md, "Our
// own MANIFEST.md is bounded"). MANIFEST.md keeps at least DefaultWindow
// rows; once it would hold DefaultWindow+DefaultChunk, its oldest
// DefaultChunk rows move into a new archive page. So it never holds more
// than 9,999 rows (about 1.6 MB at 162 bytes a row, under the 4 MiB of
// limits.manifest_bytes and manifest.MaxRows), and a page holds 5,000
// (about 0.8 MB).
const (
	DefaultWindow = 5000
	DefaultChunk  = 5000
)

// archive moves m's oldest rows into new archive pages, chunk rows each,
// while m holds window+chunk rows or more, or while its bytes would pass
// maxBytes and it holds more than a page (a safety net: rows of at most
// maxTypeBytes keep 9,999 of them under 4 MiB), and links each page from
// m. A page covers the seqs from the end of the page before it (or 1) to
// its last row, so the pages cover every seq up to the last archived one.
// Its rows keep the status they had when archived: a page is never
// rewritten. It changes nothing when m is within both bounds.
func archive(m *manifest.Manifest, o Options) []node.Page {
	window, chunk, maxBytes := o.Window, o.Chunk, o.MaxBytes
	if window <= 0 {
		window = DefaultWindow
	}
	if chunk <= 0 {
		chunk = DefaultChunk
	}
	if maxBytes <= 0 {
		maxBytes = node.MaxTopFileBytes
	}
	sort.SliceStable(m.Entries, func(i, j int) bool { return m.Entries[i].Seq < m.Entries[j].Seq })
	var pages []node.Page
	for len(m.Entries) >= window+chunk || len(m.Entries) > chunk && int64(len(m.Format())) > maxBytes {
		p := page(m, m.Entries[:chunk])
		pages = append(pages, p)
		m.Archives = append(m.Archives, p.Link)
		m.Entries = m.Entries[chunk:]
	}
	return pages
}

// page is the archive page of rows (seq ascending), following m's last
// archive page. Its time is its newest row's, so the same rows always
// give the same bytes.
func page(m *manifest.Manifest, rows []manifest.Entry) node.Page {
	rows = append([]manifest.Entry(nil), rows...)
	first := manifest.Seq(1)
	if n := len(m.Archives); n > 0 {
		first = m.Archives[n-1].Last + 1
	}
	last := rows[len(rows)-1].Seq
	pm := &manifest.Manifest{Agent: m.Agent, URL: m.URL, Sequence: last, Entries: rows}
	for _, e := range rows {
		if e.Submitted.After(pm.Updated) {
			pm.Updated = e.Submitted
		}
	}
	data := pm.Format()
	link := manifest.Archive{First: first, Last: last, File: node.ArchivePage(first, last), Hash: manifest.HashBytes(data)}
	return node.Page{Link: link, Data: data, Rows: rows}
}
