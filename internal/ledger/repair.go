package ledger

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/meshnode/meshnode/internal/statefile"
)

// repairGroup trusts the segments of the group g over its summary, which
// held of a peer other records than its segment does (a writer's defect,
// or an edit by someone with push rights that kept the header whole): a
// segment's name carries the sha256 of its bytes, which segmentBytes
// checks, so its records are the sealed ones. Every segment of g that l
// holds is read whole, and each peer whose summary part disagrees gets
// its segment's records in place of the summary's (repairPeer); Save
// writes the summary again, and Edits changes, so that what was computed
// from the summary's records is computed again. A segment that cannot be
// read repairs nothing and fails the next Save, as whole does.
func (l *Ledger) repairGroup(g string) error {
	s := l.seal
	var rels []string
	for rel := range s.segs {
		if summaryGroup(rel) == g {
			rels = append(rels, rel)
		}
	}
	slices.Sort(rels)
	read := make(map[string]map[string]*Ledger, len(rels))
	for _, rel := range rels {
		data, err := l.segmentBytes(rel)
		if err != nil {
			return fmt.Errorf("read sealed records whole: %w", err)
		}
		peers, err := decodeSegment(rel, data)
		if err != nil {
			return fmt.Errorf("read sealed records whole: segment %s: %w", rel, err)
		}
		read[rel] = peers
	}
	for _, rel := range segmentOrder(rels) {
		l.repairSegment(rel, read[rel])
	}
	s.dirty[g] = true
	s.repaired[g] = true
	l.edits++
	return nil
}

// repairSegment puts peers, the records of the segment rel read whole,
// in place of what its summary held of each peer it disagrees on.
func (l *Ledger) repairSegment(rel string, peers map[string]*Ledger) {
	s := l.seal
	held := s.segs[rel]
	names := map[string]bool{}
	for name := range held.peers {
		names[name] = true
	}
	for name := range peers {
		names[name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		part, seg := held.peers[name], peers[name]
		if part != nil && seg != nil && agrees(part, seg) {
			continue
		}
		l.repairPeer(rel, name, orEmpty(part), seg)
	}
	held.peers = peers
	s.segs[rel] = held
}

// orEmpty is p, or an empty ledger when p is nil.
func orEmpty(p *Ledger) *Ledger {
	if p == nil {
		return New()
	}
	return p
}

// repairPeer puts seg, the records of peer file name in the segment rel
// (nil when it holds none), in place of part, those its summary gave, as
// a whole Load would have them: a record of part that l holds goes, or
// gives way to the segment's of its key; a record of seg whose key l
// holds none of comes. A key l holds from a later segment or from the
// peer's file keeps its record, which a whole Load would read after this
// segment's, and so does one the peer's file held equal to part's
// (inFile), now kept in the file.
func (l *Ledger) repairPeer(rel, name string, part, seg *Ledger) {
	s := l.seal
	gone := map[any]bool{}
	part.each(func(rec any) {
		gone[rec] = true
		delete(s.records, rec)
	})
	in := orEmpty(seg)
	if len(in.Copies) > 0 && l.Copies == nil {
		l.Copies = map[string]*Trace{}
	}
	repairKind(l.Traces, part.Traces, in.Traces, s.inFile)
	repairKind(l.Validations, part.Validations, in.Validations, s.inFile)
	repairKind(l.Rejected, part.Rejected, in.Rejected, s.inFile)
	repairKind(l.Disputes, part.Disputes, in.Disputes, s.inFile)
	repairKind(l.Copies, part.Copies, in.Copies, s.inFile)

	ps := s.peerOrNew(name)
	ps.records = slices.DeleteFunc(ps.records, func(rec any) bool { return gone[rec] })
	in.each(func(rec any) {
		s.records[rec] = struct{}{}
		ps.records = append(ps.records, rec)
	})
	delete(ps.partial, rel)
	ps.names = slices.DeleteFunc(ps.names, func(r string) bool { return r == rel })
	if seg != nil {
		ps.names = append(ps.names, rel)
	}
	clear(ps.quarters)
	for _, r := range ps.names {
		ps.quarters[segmentQuarter(r)] = true
	}
	if len(ps.names) == 0 {
		delete(s.peers, name)
	}
	if l.changed != nil {
		l.changed[name] = true
	}
}

// repairKind puts seg, the records of one kind a segment holds of a
// peer, in place of part, those its summary gave, in held, the ledger's
// records of that kind (repairPeer).
func repairKind[K comparable, V any](held, part, seg map[K]*V, inFile map[any]struct{}) {
	for k, old := range part {
		if held[k] != old {
			continue
		}
		if _, ok := inFile[old]; ok {
			continue
		}
		if rec, ok := seg[k]; ok {
			held[k] = rec
		} else {
			delete(held, k)
		}
	}
	for k, rec := range seg {
		if _, ok := part[k]; !ok && held[k] == nil {
			held[k] = rec
		}
	}
}

// Repaired is the summary files whose records disagreed with their
// segments and were put right from them (repairGroup), sorted: the next
// Save writes each again.
func (l *Ledger) Repaired() []string {
	if l.seal == nil {
		return nil
	}
	var out []string
	for _, g := range slices.Sorted(maps.Keys(l.seal.repaired)) {
		out = append(out, filepath.Join(statefile.SegmentsDir(l.seal.path), g+".summary"))
	}
	return out
}
