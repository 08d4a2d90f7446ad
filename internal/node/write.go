package node

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"time"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/manifest"
)

// WriteFile writes one of the node's publishable files (a validation, a
// dispute) atomically and durably, and adds it to the snapshot. It never
// overwrites: a file already there, in the snapshot or on disk, or being
// written by another goroutine, is an error wrapping fs.ErrExist. Writes
// of different files run concurrently, so their fsyncs overlap.
func (s *Snapshot) WriteFile(rel string, data []byte) error {
	return s.writeFile(rel, data, atomicfile.CreateFile)
}

// WriteFileUnsynced is WriteFile without the fsyncs: the file is whole
// for every reader at once, and durable against a power loss once Sync
// returns. A stage that writes many files (the heartbeat's validations)
// calls Sync once before it records them as written.
func (s *Snapshot) WriteFileUnsynced(rel string, data []byte) error {
	if err := s.writeFile(rel, data, atomicfile.CreateFileUnsynced); err != nil {
		return err
	}
	s.mu.Lock()
	s.unsynced = true
	s.mu.Unlock()
	return nil
}

// Sync makes every file WriteFileUnsynced wrote durable, with one flush of
// the node's file system.
func (s *Snapshot) Sync() error {
	s.mu.Lock()
	pending := s.unsynced
	s.unsynced = false
	s.mu.Unlock()
	if !pending {
		return nil
	}
	return atomicfile.SyncFS(s.Dir)
}

func (s *Snapshot) writeFile(rel string, data []byte, write func(string, []byte, os.FileMode) error) error {
	if PublishedDir(rel) == "" {
		return fmt.Errorf("write %s: not in a published directory", rel)
	}
	if err := CheckName(path.Base(rel)); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	if err := s.reserve(rel); err != nil {
		return err
	}
	defer s.release(rel)
	// A person may have written it since the snapshot was taken: create
	// refuses to replace it, whenever it appeared.
	if err := write(s.path(rel), data, 0o644); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i, _ := s.find(rel)
	s.files = append(s.files, File{})
	copy(s.files[i+1:], s.files[i:])
	s.files[i] = File{Path: rel, Data: data, Hash: manifest.HashBytes(data)}
	s.writes++
	return nil
}

// Writes counts the files written through the snapshot since it was
// opened, and the manifests that changed: what is computed from its files
// (SIGNAL) holds while the count stays the same.
func (s *Snapshot) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

// reserve claims rel for one writer, failing when the snapshot holds it
// or another writer has it.
func (s *Snapshot) reserve(rel string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.find(rel); ok || s.writing[rel] {
		return fmt.Errorf("write %s: %w", rel, fs.ErrExist)
	}
	if s.writing == nil {
		s.writing = map[string]bool{}
	}
	s.writing[rel] = true
	return nil
}

func (s *Snapshot) release(rel string) {
	s.mu.Lock()
	delete(s.writing, rel)
	s.mu.Unlock()
}

// WriteManifest writes the new archive pages m links, oldest first, then
// replaces our MANIFEST.md with m, formatted, when its bytes differ, and
// reports whether they did. The pages go down first, durably, so a crash
// never leaves MANIFEST.md linking a page that is not there.
func (s *Snapshot) WriteManifest(m *manifest.Manifest, pages []Page) (bool, error) {
	if err := s.WritePages(pages); err != nil {
		return false, err
	}
	changed, err := atomicfile.WriteFileIfChanged(s.path(ManifestFile), m.Format(), 0o644)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", ManifestFile, err)
	}
	changed = changed || len(pages) > 0
	s.mu.Lock()
	// The same bytes again, read cleanly before, change nothing computed
	// from the files.
	if changed || s.ManifestErr != nil || len(s.ManifestProblems) > 0 {
		s.writes++
	}
	s.Manifest, s.ManifestProblems, s.ManifestErr = m, nil, nil
	s.Archive = append(s.Archive, pages...)
	s.mu.Unlock()
	return changed, nil
}

// SaveLedger writes the ledger, a file per peer, and reports whether
// anything on disk changed.
func (s *Snapshot) SaveLedger() (bool, error) {
	changed, err := s.Ledger.Save(s.path(LedgerFile))
	if err != nil {
		return changed, fmt.Errorf("save ledger: %w", err)
	}
	return changed, nil
}

// SaveCopies writes the copies of peers' traces, a file per peer, and
// reports whether anything on disk changed.
func (s *Snapshot) SaveCopies() (bool, error) {
	changed, err := s.Copies.Save(s.path(CopiesFile))
	if err != nil {
		return changed, fmt.Errorf("save copies: %w", err)
	}
	return changed, nil
}

// SaveCursors writes the cursors, a file per peer; poll times older than
// timesBefore are written, newer ones wait (state.State.Save).
func (s *Snapshot) SaveCursors(timesBefore time.Time) (bool, error) {
	changed, err := s.Cursors.Save(s.path(CursorsFile), timesBefore)
	if err != nil {
		return changed, fmt.Errorf("save cursors: %w", err)
	}
	return changed, nil
}
