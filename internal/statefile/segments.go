package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/atomicfile"
)

// Segments are the immutable files of a split state: records old enough
// to be sealed move out of a peer's file into a segment, written once and
// never rewritten, so git stores it once and a peer's file stays as small
// as its recent records (docs/formats.md, "Ledger segments"). They live
// beside the split directory, in its name with "-segments"
// (mesh-state/ledger-segments/), one directory per peer named by the
// peer's file without ".json" or per shard of the peers ("shard-a"), and
// are named by the caller.

// SegmentsDir returns the directory the segments of the split state named
// by path live in.
func SegmentsDir(path string) string { return Dir(path) + "-segments" }

// ReadSegments reads every segment of the split state named by path, by
// its slash path under SegmentsDir ("peer-1a2b3c4d/2026-Q1-0011aabb.json").
// No directory gives none; a file it cannot read is a *CorruptError, and
// an entry that is not a regular *.json file in a peer's directory is
// ignored, as in the split directory.
func ReadSegments(p string) (map[string][]byte, error) {
	dir := SegmentsDir(p)
	peers, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, &CorruptError{Path: dir, Err: err}
	}
	out := map[string][]byte{}
	for _, peer := range peers {
		if !peer.IsDir() || strings.HasPrefix(peer.Name(), ".") {
			continue
		}
		sub := filepath.Join(dir, peer.Name())
		entries, err := os.ReadDir(sub)
		if err != nil {
			return nil, &CorruptError{Path: sub, Err: err}
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			fp := filepath.Join(sub, e.Name())
			data, err := readFile(fp)
			if err != nil {
				return nil, &CorruptError{Path: fp, Err: err}
			}
			out[peer.Name()+"/"+e.Name()] = data
		}
	}
	return out, nil
}

// CreateSegment writes the segment rel (a slash path under SegmentsDir)
// of the split state named by path, atomically and only where no file is:
// a segment is never rewritten. One already there with the same bytes (a
// run that stopped before it recorded the rest) is no error; one with
// other bytes is.
func CreateSegment(p, rel string, data []byte) error {
	fp, err := segmentPath(p, rel)
	if err != nil {
		return err
	}
	err = atomicfile.CreateFile(fp, data, 0o644)
	if errors.Is(err, fs.ErrExist) {
		old, rerr := readFile(fp)
		if rerr == nil && bytes.Equal(old, data) {
			return nil
		}
		return fmt.Errorf("segment %s exists with other bytes: segments are never rewritten", rel)
	}
	if err != nil {
		return fmt.Errorf("write segment %s: %w", rel, err)
	}
	return nil
}

// RemoveSegment removes the segment rel of the split state named by path,
// and its peer's directory once empty; a segment already gone is no
// error.
func RemoveSegment(p, rel string) error {
	fp, err := segmentPath(p, rel)
	if err != nil {
		return err
	}
	if err := os.Remove(fp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove segment %s: %w", rel, err)
	}
	os.Remove(filepath.Dir(fp)) // fails, as it should, while other segments remain
	return nil
}

// segmentPath is the file of the segment rel, which must be a peer's
// directory and a *.json name below it.
func segmentPath(p, rel string) (string, error) {
	dir, name := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" || strings.Contains(dir, "/") || dir == "." || dir == ".." || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
		return "", fmt.Errorf("segment %q: not a segment name", rel)
	}
	return filepath.Join(SegmentsDir(p), dir, name), nil
}
