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

// A segment's summary is a file beside it, its name with ".summary" for
// ".json": what the caller derives once from the segment's bytes, so
// that a reader needing less than the whole records reads it instead
// (docs/decisions.md, "The ledger's window"). It is never a segment:
// ReadSegments passes over it.
const summaryExt = ".summary"

// SegmentFile is a segment on disk as ListSegments finds it.
type SegmentFile struct {
	Rel     string // its slash path under SegmentsDir
	Size    int64  // its size in bytes
	Summary []byte // its summary's bytes; nil when it has none or it cannot be read
}

// ListSegments lists the segments of the split state named by path, by
// rel, each with its size and its summary, without reading the segments
// themselves. No directory gives none; a directory it cannot read is a
// *CorruptError. A summary that cannot be read is as good as none: the
// caller derives it again from its segment.
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
		f := SegmentFile{Rel: peer + "/" + e.Name(), Size: info.Size()}
		if data, err := readFile(filepath.Join(sub, summaryName(e.Name()))); err == nil {
			f.Summary = data
		}
		out = append(out, f)
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

// WriteSummary writes the summary of the segment rel of the split state
// named by path, atomically: a summary is derived from its segment, so
// one found damaged is replaced by the caller's.
func WriteSummary(p, rel string, data []byte) error {
	fp, err := segmentPath(p, rel)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(summaryName(fp), data, 0o644); err != nil {
		return fmt.Errorf("write summary of segment %s: %w", rel, err)
	}
	return nil
}

// summaryName is the name of the summary of the segment named name.
func summaryName(name string) string { return strings.TrimSuffix(name, ".json") + summaryExt }
