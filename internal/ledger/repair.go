package ledger

import (
	"maps"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/meshnode/meshnode/internal/manifest"
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
		peers, err := l.readWhole(rel)
		if err != nil {
			return err
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
		part, seg := held.peers[name].ledger(), peers[name]
		if part != nil && seg != nil && agrees(part, seg) {
			continue
		}
		l.repairPeer(rel, name, orEmpty(part), seg)
	}
	held.peers = fullParts(peers)
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
	s.materializePeer(name)
	gone := map[any]bool{}
	part.each(func(rec any) {
		gone[rec] = true
		s.records.remove(rec)
	})
	in := orEmpty(seg)
	if len(in.Copies) > 0 && l.Copies == nil {
		l.Copies = map[string]*Trace{}
	}
	at := segmentPeer{rel, name}
	repairKind(s, at, l.Traces, part.Traces, in.Traces, func(p *Ledger) map[manifest.Hash]*Trace { return p.Traces })
	repairKind(s, at, l.Validations, part.Validations, in.Validations, func(p *Ledger) map[string]*Validation { return p.Validations })
	repairKind(s, at, l.Rejected, part.Rejected, in.Rejected, func(p *Ledger) map[string]*Rejection { return p.Rejected })
	repairKind(s, at, l.Disputes, part.Disputes, in.Disputes, func(p *Ledger) map[string]*Dispute { return p.Disputes })
	repairKind(s, at, l.Copies, part.Copies, in.Copies, func(p *Ledger) map[string]*Trace { return p.Copies })

	ps := s.peerOrNew(name)
	ps.records = slices.DeleteFunc(ps.records, func(rec any) bool { return gone[rec] })
	in.each(func(rec any) {
		s.records.add(rec)
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
	l.fileChanged(name)
}

// segmentPeer names the records of peer file name in the segment rel.
type segmentPeer struct{ rel, name string }

// before reports whether a whole Load reads the records a before those
// of b: by quarter, then path (segmentOrder), then peer (addSealed).
func (a segmentPeer) before(b segmentPeer) bool {
	if qa, qb := segmentQuarter(a.rel), segmentQuarter(b.rel); qa != qb {
		return qa < qb
	}
	if a.rel != b.rel {
		return a.rel < b.rel
	}
	return a.name < b.name
}

// repairKind puts seg, the records of one kind the segment and peer at
// hold, in place of part, those its summary gave, in held, the ledger's
// records of that kind, of reads that kind of a peer's records
// (repairPeer). A key the summary alone gave takes the record of it
// another segment holds, if any, and a key the segment alone holds keeps
// the record of a segment read after it, as a whole Load would.
func repairKind[K comparable, V any](s *sealing, at segmentPeer, held, part, seg map[K]*V, of func(*Ledger) map[K]*V) {
	for k, old := range part {
		if held[k] != old {
			continue
		}
		// The peer's file held this record, equal to the summary's: it
		// stays there when the segment says otherwise, and gives way to
		// the segment's when they agree, as the next save of a twin that
		// never had the lie drops a file's record its segment holds.
		if _, ok := s.inFile[old]; ok && !reflect.DeepEqual(old, seg[k]) {
			continue
		}
		if rec, ok := seg[k]; ok {
			held[k] = rec
		} else if rec := sealedElsewhere(s, at, k, of); rec != nil {
			held[k] = rec
		} else {
			delete(held, k)
		}
	}
	for k, rec := range seg {
		if _, ok := part[k]; ok {
			continue
		}
		if cur := held[k]; cur == nil || sealedBefore(s, at, k, cur, of) {
			held[k] = rec
		}
	}
}

// sealedBefore reports whether rec, the record l holds under key k, is
// one a segment other than at holds that a whole Load reads before at's:
// one read after it, or from a peer's file, stays.
func sealedBefore[K comparable, V any](s *sealing, at segmentPeer, k K, rec *V, of func(*Ledger) map[K]*V) bool {
	s.materialize()
	for rel, seg := range s.segs {
		for name, p := range seg.peers {
			if here := (segmentPeer{rel, name}); here != at && of(p.ledger())[k] == rec {
				return here.before(at)
			}
		}
	}
	return false
}

// sealedElsewhere is the record of key k, of the kind of reads, that a
// whole Load would keep of the segments but for the peer at: the one it
// reads last. Nil when none holds k. A node never seals one key twice,
// so this is the path of a forged summary only.
func sealedElsewhere[K comparable, V any](s *sealing, at segmentPeer, k K, of func(*Ledger) map[K]*V) *V {
	s.materialize()
	var last *V
	var lastAt segmentPeer
	for rel, seg := range s.segs {
		for name, p := range seg.peers {
			here := segmentPeer{rel, name}
			rec := of(p.ledger())[k]
			if here == at || rec == nil || (last != nil && here.before(lastAt)) {
				continue
			}
			last, lastAt = rec, here
		}
	}
	return last
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
