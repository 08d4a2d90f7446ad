package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/meshnode/meshnode/internal/atomicfile"
)

// A summary is a file at the top of SegmentsDir, "<name>.summary": what
// the caller derives from a group of segments, so that a reader needing
// less than their whole records reads it instead of them
// (docs/decisions.md, "The ledger's window"). ReadSegments passes over
// it, as over every file outside a peer's directory.
const summaryExt = ".summary"

// SegmentFile is a segment on disk as ListSegments finds it.
type SegmentFile struct {
	Rel  string // its slash path under SegmentsDir
	Size int64  // its size in bytes
}

// ListSegments lists the segments of the split state named by path, by
// rel, each with its size, without reading them. No directory gives
// none; a directory it cannot read is a *CorruptError.
func ListSegments(p string) ([]SegmentFile, error) {
	dir := SegmentsDir(p)
	peers, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &CorruptError{Path: dir, Err: err}
	}
	var out []SegmentFile
	for _, peer := range peers {
		if !peer.IsDir() || strings.HasPrefix(peer.Name(), ".") {
			continue
		}
		files, err := listPeerSegments(dir, peer.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	slices.SortFunc(out, func(a, b SegmentFile) int { return strings.Compare(a.Rel, b.Rel) })
	return out, nil
}

// ListSegmentsOf lists the segments of the split state named by path in
// its directory dir (a peer's, or a shard's: "shard-a"), by rel, each
// with its size, without reading them, for a reader that needs the
// sealed records of a few peers only. No directory gives none, as
// ListSegments finds none there; a directory it cannot read is a
// *CorruptError.
func ListSegmentsOf(p, dir string) ([]SegmentFile, error) {
	if dir == "" || strings.ContainsAny(dir, `/\`) || strings.HasPrefix(dir, ".") {
		return nil, fmt.Errorf("segments of %q: not a segment directory's name", dir)
	}
	// What ListSegments passes over (no directory, a file or a link in
	// its place) holds none here either.
	info, err := os.Lstat(filepath.Join(SegmentsDir(p), dir))
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !info.IsDir()) {
		return nil, nil
	}
	if err != nil {
		return nil, &CorruptError{Path: filepath.Join(SegmentsDir(p), dir), Err: err}
	}
	return listPeerSegments(SegmentsDir(p), dir)
}

// listPeerSegments lists the segments of one peer's directory.
func listPeerSegments(dir, peer string) ([]SegmentFile, error) {
	sub := filepath.Join(dir, peer)
	entries, err := os.ReadDir(sub)
	if err != nil {
		return nil, &CorruptError{Path: sub, Err: err}
	}
	var out []SegmentFile
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return nil, &CorruptError{Path: filepath.Join(sub, e.Name()), Err: err}
		}
		out = append(out, SegmentFile{Rel: peer + "/" + e.Name(), Size: info.Size()})
	}
	return out, nil
}

// ReadSegment reads the segment rel of the split state named by path; a
// file it cannot read is a *CorruptError.
func ReadSegment(p, rel string) ([]byte, error) {
	fp, err := segmentPath(p, rel)
	if err != nil {
		return nil, err
	}
	data, err := readFile(fp)
	if err != nil {
		return nil, &CorruptError{Path: fp, Err: err}
	}
	return data, nil
}

// ReadSummary reads the summary name of the split state named by path,
// refusing one of more than max bytes before reading it: a summary holds
// less than its segments, so one larger than they could give is damaged,
// and reading it whole could take every byte of memory. A summary that
// cannot be read is as good as none: the caller derives it again from its
// segments.
func ReadSummary(p, name string, max int64) ([]byte, error) {
	fp, err := summaryPath(p, name)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(fp)
	if err != nil {
		return nil, err
	}
	if info.Size() > max {
		return nil, fmt.Errorf("summary %s: %d bytes, more than its segments could give (%d)", name, info.Size(), max)
	}
	return readFile(fp)
}

// WriteSummary writes the summary name of the split state named by path,
// atomically and only when its bytes change (a summary is derived from
// segments, so one found stale is replaced by the caller's), and reports
// whether it wrote.
func WriteSummary(p, name string, data []byte) (bool, error) {
	fp, err := summaryPath(p, name)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(fp), 0o755); err != nil {
		return false, fmt.Errorf("write summary %s: %w", name, err)
	}
	wrote, err := atomicfile.WriteFileIfChanged(fp, data, 0o644)
	if err != nil {
		return false, fmt.Errorf("write summary %s: %w", name, err)
	}
	return wrote, nil
}

// RemoveSummary removes the summary name of the split state named by
// path, its segments gone, and reports whether it was there.
func RemoveSummary(p, name string) (bool, error) {
	fp, err := summaryPath(p, name)
	if err != nil {
		return false, err
	}
	err = os.Remove(fp)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("remove summary %s: %w", name, err)
	}
	return true, nil
}

// summaryPath is the file of the summary name, a plain name.
func summaryPath(p, name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return "", fmt.Errorf("summary %q: not a summary name", name)
	}
	return filepath.Join(SegmentsDir(p), name+summaryExt), nil
}

// ListSummaries names the summaries of the split state named by path,
// sorted, without ".summary".
func ListSummaries(p string) ([]string, error) {
	entries, err := os.ReadDir(SegmentsDir(p))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &CorruptError{Path: SegmentsDir(p), Err: err}
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), summaryExt); ok && e.Type().IsRegular() && !strings.HasPrefix(name, ".") && name != "" {
			out = append(out, name)
		}
	}
	return out, nil
}
