package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// ImmutableError reports published files whose bytes changed or that were
// deleted. Peers addressed those files by their hash; changing them breaks
// every peer's hash check, so nothing is published until they are restored.
type ImmutableError struct {
	Files []Violation // in MANIFEST order
}

// Violation is one published file that no longer holds its published bytes.
type Violation struct {
	File          string
	Seq           manifest.Seq
	PublishedHash manifest.Hash
	CurrentHash   manifest.Hash // empty when the file was deleted
}

// Deleted reports whether the file is gone rather than edited.
func (v Violation) Deleted() bool { return v.CurrentHash == "" }

// String says what happened to the file, with its published hash.
func (v Violation) String() string {
	if v.Deleted() {
		return fmt.Sprintf("%s (seq %d) was deleted; it was published as %s", v.File, v.Seq, v.PublishedHash)
	}
	return fmt.Sprintf("%s (seq %d) was edited; it was published as %s and now hashes to %s",
		v.File, v.Seq, v.PublishedHash, v.CurrentHash)
}

// Fix is the one-line remedy for the violation.
func (v Violation) Fix() string {
	return fmt.Sprintf("restore it with `git checkout -- %s` and publish a correcting trace that cites it", v.File)
}

// Error lists every changed file, each with its fix.
func (e *ImmutableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d published file(s) changed; published files are immutable", len(e.Files))
	for _, v := range e.Files {
		fmt.Fprintf(&b, "\n  %s: %s", v, v.Fix())
	}
	return b.String()
}

// verifyRows checks that every file our rows list (node.Snapshot.Rows:
// MANIFEST.md's and its archive pages') still holds the bytes it was
// published with, and returns those that do not, in row order. Rows
// without a file column (older layouts) cannot be checked.
func verifyRows(s *node.Snapshot, rows []manifest.Entry) ([]Violation, error) {
	var bad []Violation
	for _, e := range rows {
		if e.File == "" {
			continue
		}
		v, err := verifyEntry(s, e)
		if err != nil {
			return nil, err
		}
		if v != nil {
			bad = append(bad, *v)
		}
	}
	return bad, nil
}

// anySize bounds nothing in practice: a file already published is verified
// whatever its size, since peers hold its hash.
const anySize = 1 << 40

// verifyEntry compares a row's hash with its file: the snapshot's copy,
// or, for a file the snapshot did not read (too large, or not where a
// publishable file would be), the file on disk.
func verifyEntry(s *node.Snapshot, e manifest.Entry) (*Violation, error) {
	if _, err := localPath(s.Dir, e.File); err != nil {
		return nil, err
	}
	var hash manifest.Hash
	if f, ok := s.File(path.Clean(e.File)); ok && f.Err == nil {
		hash = f.Hash
	} else {
		data, err := node.ReadFile(s.Dir, e.File, anySize)
		if errors.Is(err, fs.ErrNotExist) {
			return &Violation{File: e.File, Seq: e.Seq, PublishedHash: e.Hash}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read published %s: %w", e.File, err)
		}
		hash = manifest.HashBytes(data)
	}
	if hash != e.Hash {
		return &Violation{File: e.File, Seq: e.Seq, PublishedHash: e.Hash, CurrentHash: hash}, nil
	}
	return nil, nil
}
