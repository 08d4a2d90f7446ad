package translog

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// CheckpointFile is the signed checkpoint's path under the log's
// directory; the tiles are under tile/ (TilePath).
const CheckpointFile = "checkpoint"

// HistoryError is a published log that the rows do not extend: the
// MANIFEST.md and the log would disagree, so nothing is written.
type HistoryError struct {
	Index int64 // the first entry that differs, or the published size
	Why   string
}

func (e *HistoryError) Error() string {
	return fmt.Sprintf("the published log does not extend to these rows (entry %d): %s", e.Index, e.Why)
}

// Update returns the log's files (by path under its directory: the
// checkpoint, every tile and the key statements) for entries, given the
// files published before (nil or empty for a new log). The published log
// must be a prefix of entries, signed by skey's key: its checkpoint
// verifies, its entry bundles hold the first entries byte for byte except
// for the category, which the log keeps as first logged, and its root is
// the new tree's at its size. Otherwise a *HistoryError says where they
// part and nothing is to be written. The new checkpoint is signed by skey
// and each of cosigners (the new key, at a rotation); a log that did not
// grow keeps its checkpoint, so the rotation's checkpoint, signed by both
// keys, stays until the next entry. The key statements published before
// are kept as they are. The files are a function of the entries and the
// keys: an unchanged log gives the same bytes.
func Update(old map[string][]byte, entries []Entry, skey string, cosigners ...string) (map[string][]byte, error) {
	vkey, err := VerifierKey(skey)
	if err != nil {
		return nil, err
	}
	var tree Tree
	prev, err := published(old, vkey)
	if err != nil {
		return nil, err
	}
	if prev != nil {
		if err := prev.extendedBy(entries); err != nil {
			return nil, err
		}
		for _, e := range prev.entries {
			if err := tree.Append(e); err != nil {
				return nil, err
			}
		}
		root, err := tree.Root(prev.cp.Size)
		if err != nil || root != prev.cp.Root {
			return nil, &HistoryError{Index: prev.cp.Size, Why: "its tiles do not hash to its signed checkpoint"}
		}
	}
	for _, e := range entries[tree.Size():] {
		b, err := e.Marshal()
		if err != nil {
			return nil, err
		}
		if err := tree.Append(b); err != nil {
			return nil, err
		}
	}
	files, err := tree.Tiles()
	if err != nil {
		return nil, err
	}
	for name, data := range KeyStatements(old) {
		files[name] = data
	}
	if prev != nil && prev.cp.Size == tree.Size() && len(cosigners) == 0 {
		files[CheckpointFile] = old[CheckpointFile]
		return files, nil
	}
	root, err := tree.Root(tree.Size())
	if err != nil {
		return nil, err
	}
	s, err := note.NewSigner(skey)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	cp, err := Sign(Checkpoint{Origin: s.Name(), Size: tree.Size(), Root: root}, append([]string{skey}, cosigners...)...)
	if err != nil {
		return nil, err
	}
	files[CheckpointFile] = cp
	return files, nil
}

// KeyStatements returns the key statements among a log's files, by path
// under its directory (KeyStatementPath).
func KeyStatements(files map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for name, data := range files {
		if strings.HasPrefix(name, KeyStatementDir+"/") {
			out[name] = data
		}
	}
	return out
}

// publishedLog is a log as published: its verified checkpoint and entries.
type publishedLog struct {
	cp      Checkpoint
	entries [][]byte
}

// published reads the log in old, nil when there is none.
func published(old map[string][]byte, vkey string) (*publishedLog, error) {
	msg, ok := old[CheckpointFile]
	if !ok {
		return nil, nil
	}
	cp, err := Open(msg, vkey)
	if err != nil {
		return nil, &HistoryError{Why: fmt.Sprintf("its checkpoint does not verify with the node's key: %v", err)}
	}
	entries, err := EntriesOf(old, cp.Size)
	if err != nil {
		return nil, &HistoryError{Index: cp.Size, Why: err.Error()}
	}
	return &publishedLog{cp: cp, entries: entries}, nil
}

// extendedBy checks that entries start with the published ones. Each
// published entry is compared with its row marshaled with the entry's own
// category: equal bytes are Marshal's, so ParseEntry would accept them;
// only an entry that differs is parsed, to say how.
func (p *publishedLog) extendedBy(entries []Entry) error {
	if int64(len(entries)) < p.cp.Size {
		return &HistoryError{Index: int64(len(entries)), Why: fmt.Sprintf("%d entries published, %d rows now", p.cp.Size, len(entries))}
	}
	var buf []byte
	for i, b := range p.entries {
		want := entries[i]
		want.Category = categoryOf(b)
		wb, err := want.appendTo(buf[:0])
		if err == nil && bytes.Equal(wb, b) {
			buf = wb
			continue
		}
		if err := differs(int64(i), b, entries[i]); err != nil {
			return err
		}
	}
	return nil
}

// differs says how the published entry b, at index i, differs from the
// row want, nil when it does not.
func differs(i int64, b []byte, want Entry) error {
	got, err := ParseEntry(b)
	if err != nil {
		return &HistoryError{Index: i, Why: err.Error()}
	}
	want.Category = got.Category
	if wb, err := want.Marshal(); err != nil || string(wb) != string(b) {
		return &HistoryError{Index: i, Why: fmt.Sprintf("logged seq %d %s %s, the row is seq %d %s %s", got.Seq, got.Hash, got.File, want.Seq, want.Hash, want.File)}
	}
	return nil
}
