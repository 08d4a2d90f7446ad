package node

import (
	"fmt"
	"slices"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/manifest"
)

// Page is one of our MANIFEST.md's archive pages as the snapshot read it.
type Page struct {
	Link manifest.Archive // the "archive:" line of MANIFEST.md that names it
	Data []byte           // its bytes, copied byte for byte by the site
	Rows []manifest.Entry // its rows
}

// readArchive reads every archive page our MANIFEST.md links, oldest
// first. A page that is missing, altered, misnamed, or holds a row outside
// its range is ArchiveErr: peers verify it by the hash MANIFEST.md gives,
// so nothing may be published over it until it is restored.
func (s *Snapshot) readArchive() {
	for _, a := range s.Manifest.Archives {
		p, err := s.readPage(a)
		if err != nil {
			s.Archive, s.ArchiveErr = nil, fmt.Errorf("our own archive page %s: %w; restore it with `git checkout -- %s`", a.File, err, a.File)
			return
		}
		s.Archive = append(s.Archive, p)
	}
}

func (s *Snapshot) readPage(a manifest.Archive) (Page, error) {
	if a.File != ArchivePage(a.First, a.Last) {
		return Page{}, fmt.Errorf("the node names the page of seqs %d-%d %s", a.First, a.Last, ArchivePage(a.First, a.Last))
	}
	noteRead(a.File)
	data, err := ReadFile(s.Dir, a.File, MaxTopFileBytes)
	if err != nil {
		return Page{}, err
	}
	if h := manifest.HashBytes(data); h != a.Hash {
		return Page{}, fmt.Errorf("it hashes to %s, and %s links it as %s", h, ManifestFile, a.Hash)
	}
	m, problems, err := manifest.Parse(data)
	if err != nil {
		return Page{}, err
	}
	if len(problems) > 0 {
		return Page{}, fmt.Errorf("line %d: %s", problems[0].Line, problems[0].Reason)
	}
	for _, e := range m.Entries {
		if e.Seq < a.First || e.Seq > a.Last {
			return Page{}, fmt.Errorf("row of seq %d outside the page's range %d-%d", e.Seq, a.First, a.Last)
		}
	}
	return Page{Link: a, Data: data, Rows: m.Entries}, nil
}

// Rows returns every row we ever published: the archive pages' rows, then
// MANIFEST.md's. Whatever asks which files are published (publish, the
// site, SIGNAL, the gate) asks this, so an archived row counts as one.
func (s *Snapshot) Rows() []manifest.Entry { return s.RowsWith(s.Manifest, nil) }

// RowsWith returns the rows we will have published once m and the new
// archive pages are written (WriteManifest): the pages' rows, then m's.
func (s *Snapshot) RowsWith(m *manifest.Manifest, pages []Page) []manifest.Entry {
	var out []manifest.Entry
	for _, p := range append(slices.Clip(s.Archive), pages...) {
		out = append(out, p.Rows...)
	}
	return append(out, m.Entries...)
}

// WritePages writes new archive pages, oldest first, before a
// MANIFEST.md that links them (WriteManifest).
func (s *Snapshot) WritePages(pages []Page) error {
	for _, p := range pages {
		if err := s.writeArchivePage(p.Link, p.Data); err != nil {
			return err
		}
	}
	return nil
}

// writeArchivePage writes a new archive page atomically and durably. A
// page MANIFEST.md already links is never rewritten; one it does not link
// yet is what a run that stopped before writing MANIFEST.md left, and is
// replaced.
func (s *Snapshot) writeArchivePage(a manifest.Archive, data []byte) error {
	if a.File != ArchivePage(a.First, a.Last) {
		return fmt.Errorf("write %s: not the archive page of seqs %d-%d", a.File, a.First, a.Last)
	}
	for _, old := range s.Manifest.Archives {
		if old.File == a.File {
			return fmt.Errorf("write %s: already published; archive pages are immutable", a.File)
		}
	}
	if _, err := atomicfile.WriteFileIfChanged(s.path(a.File), data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", a.File, err)
	}
	return nil
}
