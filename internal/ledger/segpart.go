package ledger

import (
	"math"

	"github.com/meshnode/meshnode/internal/manifest"
)

// segPart is what the ledger holds of the records of one peer in one
// segment. A segment read whole, or sealed, holds them as a ledger (l); a
// segment read from its summary holds them as a range of its peer's
// peerSegments.records (ps), traces then copies then validations, with no
// map of its own: a summary holds a part for each peer of each segment
// (110,000 after three years of 10,000 agents), and their maps were about
// 70 MB live through a heartbeat with news, for the few readers that
// rebuild them (ledger): the summary's writer, whole and the repair of a
// lying summary (docs/decisions.md, "Memory").
type segPart struct {
	l                          *Ledger
	ps                         *peerSegments
	at, traces, copies, valids int32
}

// fullPart is the part whose records are l's.
func fullPart(l *Ledger) segPart { return segPart{l: l} }

// fullParts is peers, records by peer file name, as parts.
func fullParts(peers map[string]*Ledger) map[string]segPart {
	out := make(map[string]segPart, len(peers))
	for name, p := range peers {
		out[name] = fullPart(p)
	}
	return out
}

// ledger is the records of p: its ledger, or one built from its range, its
// rejections and disputes nil as a summary's reader leaves them. Nil for
// the zero part, a peer a segment does not hold.
func (p segPart) ledger() *Ledger {
	if p.ps == nil {
		return p.l
	}
	recs := p.ps.records[p.at : p.at+p.traces+p.copies+p.valids]
	l := &Ledger{Traces: make(map[manifest.Hash]*Trace, p.traces), Validations: make(map[string]*Validation, p.valids)}
	for _, rec := range recs[:p.traces] {
		t := rec.(*Trace)
		l.Traces[t.Hash] = t
	}
	if p.copies > 0 {
		l.Copies = make(map[string]*Trace, p.copies)
		for _, rec := range recs[p.traces : p.traces+p.copies] {
			t := rec.(*Trace)
			l.Copies[CopyKey(t.AgentURL, t.Hash)] = t
		}
	}
	for _, rec := range recs[p.traces+p.copies:] {
		v := rec.(*Validation)
		l.Validations[v.Key()] = v
	}
	return l
}

// rangeable reports whether part, what a summary gave of a peer's records
// in a segment, can be held as a range: every record under the key its
// fields give (the summary's reader keys a copy by CopyKey and a
// validation by its Key; a trace may come under a key not its hash), and
// no rejection or dispute, which few peers have and whose keys a range
// would not give back.
func rangeable(part *Ledger) bool {
	if len(part.Rejected) > 0 || len(part.Disputes) > 0 {
		return false
	}
	if len(part.Traces)+len(part.Copies)+len(part.Validations) > math.MaxInt32 {
		return false
	}
	for k, t := range part.Traces {
		if k != t.Hash {
			return false
		}
	}
	return true
}

// note notes the records of part, those of the peer of ps in a segment,
// as sealed, and returns the part the ledger holds of them: a range of
// ps.records when summarized (read from a summary) and rangeable, else
// part itself.
func (s *sealing) note(ps *peerSegments, part *Ledger, summarized bool) segPart {
	if !summarized || !rangeable(part) {
		part.each(func(rec any) {
			s.records.add(rec)
			ps.records = append(ps.records, rec)
		})
		return fullPart(part)
	}
	r := segPart{ps: ps, at: int32(len(ps.records)), traces: int32(len(part.Traces)),
		copies: int32(len(part.Copies)), valids: int32(len(part.Validations))}
	if int64(len(ps.records))+int64(len(part.Traces)+len(part.Copies)+len(part.Validations)) > math.MaxInt32 {
		return s.note(ps, part, false)
	}
	for _, t := range part.Traces {
		s.records.add(t)
		ps.records = append(ps.records, t)
	}
	for _, t := range part.Copies {
		s.records.add(t)
		ps.records = append(ps.records, t)
	}
	for _, v := range part.Validations {
		s.records.add(v)
		ps.records = append(ps.records, v)
	}
	return r
}

// materialize puts a ledger in place of every range, before the repair
// of a lying summary looks a key up in every segment's parts
// (sealedBefore, sealedElsewhere). Linear in the sealed records, once:
// only a summary that gave a key its segment does not hold, or left one
// out, takes this path, and no summary a node writes does.
func (s *sealing) materialize() {
	for name := range s.peers {
		s.materializePeer(name)
	}
}

// materializePeer puts a ledger in place of each range of the peer file
// name, before a repair changes the peer's records (repairPeer), which
// would move the ranges of its other segments. A part a segment and the
// peer's partial share stays one ledger.
func (s *sealing) materializePeer(name string) {
	ps := s.peers[name]
	if ps == nil {
		return
	}
	for _, rel := range ps.names {
		seg, ok := s.segs[rel]
		if p := seg.peers[name]; ok && p.ps != nil {
			full := fullPart(p.ledger())
			seg.peers[name] = full
			if ps.partial[rel] == p {
				ps.partial[rel] = full
			}
		}
	}
	for rel, p := range ps.partial {
		if p.ps != nil {
			ps.partial[rel] = fullPart(p.ledger())
		}
	}
}
