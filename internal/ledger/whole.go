package ledger

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// LoadCompact is Load for a heartbeat: it reads each segment's summary
// instead of the segment, so the sealed traces and copies lack their
// title and citations, which no heartbeat reads, until a method about to
// replace, move or delete one reads its peer's segments whole (whole).
// A segment whose summary is missing, damaged or of another segment is
// read whole, and Save writes its summary. The records hold everything
// else as Load gives it, so SIGNAL, standing and every other reader of a
// heartbeat compute the same (docs/decisions.md, "The ledger's window").
func LoadCompact(path string) (*Ledger, error) { return load(path, true) }

// loadSummarized merges the segments of the ledger at path into l, a
// group at a time (summaryGroup), from the group's summary where it is
// the summary of exactly the group's segments, else from the segments.
func (l *Ledger) loadSummarized(path string) error {
	files, err := statefile.ListSegments(path)
	if err != nil {
		return err
	}
	groups := map[string][]statefile.SegmentFile{}
	for _, f := range files {
		if err := checkSegmentName(f.Rel); err != nil {
			return statefile.Corrupt(filepath.Join(statefile.SegmentsDir(path), filepath.FromSlash(f.Rel)), nil, err)
		}
		g := summaryGroup(f.Rel)
		groups[g] = append(groups[g], f)
	}
	l.sealer().path = path
	// A summary of segments all gone (an older node removed them) is
	// removed by the next save.
	names, err := statefile.ListSummaries(path)
	if err != nil {
		return err
	}
	for _, g := range names {
		if groups[g] == nil {
			l.seal.dirty[g] = true
		}
	}
	// By group, quarters in order: a peer's later quarter is read after
	// its earlier ones, as Load reads them.
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		if err := l.loadGroup(path, g, groups[g]); err != nil {
			return err
		}
	}
	return nil
}

// loadGroup merges the segments files, those of the group g, into l.
func (l *Ledger) loadGroup(path, g string, files []statefile.SegmentFile) error {
	data, err := statefile.ReadSummary(path, g, summaryMax(files))
	var peers []map[string]*Ledger
	if err == nil {
		peers, err = decodeSummary(files, data, l.strs)
	}
	if err != nil {
		l.seal.dirty[g] = true
		return l.loadGroupWhole(path, files)
	}
	gone, err := redundantOf(sharedShards(files, peers), func(rel string) (map[string]json.RawMessage, error) {
		return entriesOn(path, rel)
	})
	if err != nil {
		return err
	}
	for i, f := range files {
		if gone[f.Rel] {
			l.dropRedundant(f.Rel)
			continue
		}
		l.addSealed(f.Rel, f.Size, peers[i], true)
	}
	return nil
}

// loadGroupWhole merges the segments files of the ledger at path, those
// of a group whose summary is missing, damaged or of other segments, into
// l, each read whole.
func (l *Ledger) loadGroupWhole(path string, files []statefile.SegmentFile) error {
	rels, segs, err := readGroup(path, files)
	if err != nil {
		return err
	}
	return l.loadRead(path, rels, segs)
}

// readGroup reads the segments files of the ledger at path, each checked
// against the hash its name gives, and returns their paths, in files'
// order, and their bytes by path.
func readGroup(path string, files []statefile.SegmentFile) ([]string, map[string][]byte, error) {
	segs := make(map[string][]byte, len(files))
	rels := make([]string, len(files))
	for i, f := range files {
		data, err := statefile.ReadSegment(path, f.Rel)
		if err != nil {
			return nil, nil, err
		}
		if err := checkSegmentBytes(f.Rel, data); err != nil {
			return nil, nil, segmentCorrupt(path, f.Rel, data, err)
		}
		segs[f.Rel], rels[i] = data, f.Rel
	}
	return rels, segs, nil
}

// sharedShards is the shard segments among files, each with its records
// by peer file name in peers, that hold a peer another of them holds too:
// only those can be redundant (redundantShards), and only those a
// heartbeat reads whole to know.
func sharedShards(files []statefile.SegmentFile, peers []map[string]*Ledger) []string {
	holders := map[string][]string{}
	for i, f := range files {
		if isShardSegment(f.Rel) {
			for name := range peers[i] {
				holders[name] = append(holders[name], f.Rel)
			}
		}
	}
	shared := map[string]bool{}
	for _, rels := range holders {
		if len(rels) > 1 {
			for _, rel := range rels {
				shared[rel] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(shared))
}

// entriesOn is the entries of the shard segment rel of the ledger at
// path, read whole and checked against its name.
func entriesOn(path, rel string) (map[string]json.RawMessage, error) {
	data, err := statefile.ReadSegment(path, rel)
	if err != nil {
		return nil, err
	}
	e, err := checkedEntries(rel, data)
	if err != nil {
		return nil, segmentCorrupt(path, rel, data, err)
	}
	return e, nil
}

// summaryMax bounds the size of the summary of files: what it holds of
// their records is less than they hold, and its header names each (a path
// and a size) besides a fixed part.
func summaryMax(files []statefile.SegmentFile) int64 {
	max := int64(64 << 10)
	for _, f := range files {
		max += f.Size + int64(len(f.Rel)) + 64
	}
	return max
}

// whole reads the segments of peer file name that l holds from their
// summaries, and puts their whole traces and copies in place of what the
// summaries held: a method is about to copy, move or delete one. A
// segment whose summary does not agree with it is trusted over the
// summary, which is derived (repairGroup). A segment that cannot be read
// leaves its records as they are and fails the next Save, which writes
// nothing: a record short of its title must never reach a peer's file.
func (l *Ledger) whole(name string) {
	ps := l.seal.peer(name)
	if ps == nil || len(ps.partial) == 0 {
		return
	}
	swap := map[any]any{}
	for _, rel := range slices.Sorted(maps.Keys(ps.partial)) {
		// A repair of the group of an earlier segment may have read
		// this one whole already, or left the peer no segment.
		if ps = l.seal.peer(name); ps == nil {
			break
		}
		part, ok := ps.partial[rel]
		if !ok {
			continue
		}
		if err := l.wholeSegment(name, rel, part.ledger(), swap); err != nil {
			l.fail(err)
			continue
		}
		delete(ps.partial, rel)
	}
	for old, rec := range swap {
		l.seal.records.remove(old)
		l.seal.records.add(rec)
	}
	if ps = l.seal.peer(name); ps == nil {
		return
	}
	for i, rec := range ps.records {
		if n, ok := swap[rec]; ok {
			ps.records[i] = n
		}
	}
}

// wholeSegment reads the segment rel, whose summary held part of the
// records of peer file name, and puts that peer's traces and copies in
// place of part's where l holds those, noting each replaced record in
// swap. When part is not what the segment holds, it repairs the
// segment's group instead (repairGroup).
func (l *Ledger) wholeSegment(name, rel string, part *Ledger, swap map[any]any) error {
	peers, err := l.readWhole(rel)
	if err != nil {
		return err
	}
	seg := peers[name]
	if seg == nil || !agrees(part, seg) {
		return l.repairGroup(summaryGroup(rel))
	}
	for k, t := range seg.Traces {
		old := part.Traces[k]
		if l.Traces[k] == old {
			l.Traces[k] = t
		}
		swap[old] = t
	}
	for k, t := range seg.Copies {
		old := part.Copies[k]
		if l.Copies[k] == old {
			l.Copies[k] = t
		}
		swap[old] = t
	}
	return nil
}

// fail keeps the first error of a method that has none to return, for
// Save to return.
func (l *Ledger) fail(err error) {
	if l.err == nil {
		l.err = err
	}
}

// readWhole is the records of the segment rel by peer file name, its
// bytes checked against its name (segmentBytes).
func (l *Ledger) readWhole(rel string) (map[string]*Ledger, error) {
	data, err := l.segmentBytes(rel)
	if err != nil {
		return nil, fmt.Errorf("read sealed records whole: %w", err)
	}
	peers, err := decodeSegment(rel, data)
	if err != nil {
		return nil, fmt.Errorf("read sealed records whole: segment %s: %w", rel, err)
	}
	return peers, nil
}

// WholeTrace returns the trace of hash h whole, nil when l holds none: a
// trace LoadCompact took from a summary is read again from its segment,
// with its title and citations, for what shows them (a queue item). A
// segment that cannot be read leaves the record as the summary held it
// and fails the next Save (whole). Nil too when only a summary that lied
// gave the trace: reading it whole puts the segment's records in place of
// the summary's (repairGroup), of any peer of its group.
func (l *Ledger) WholeTrace(h manifest.Hash) *Trace {
	t := l.Traces[h]
	if t == nil {
		return nil
	}
	l.wholeOf(t, t.AgentURL)
	return l.Traces[h]
}

// wholeOf reads the segments of the peer that files rec, a record l
// holds, when rec may be one a summary held (whole).
func (l *Ledger) wholeOf(rec any, url string) {
	if l.seal.holds(rec) {
		l.whole(statefile.PeerFileName(url))
	}
}

// segmentBytes is the bytes of the segment rel: those Save is to write,
// or those on disk, checked against its name.
func (l *Ledger) segmentBytes(rel string) ([]byte, error) {
	if data, ok := l.seal.create[rel]; ok {
		return data, nil
	}
	data, err := statefile.ReadSegment(l.seal.path, rel)
	if err != nil {
		return nil, err
	}
	if err := checkSegmentBytes(rel, data); err != nil {
		return nil, err
	}
	return data, nil
}
