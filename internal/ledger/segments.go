package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/statefile"
)

// Window is how long a record stays in its peer's file before Compact may
// seal it into a segment: the protocol's 90-day window (docs/protocol.md
// §9, seen hashes and silent peers are forgotten after it), so a peer's
// file holds about its last 90 days and one quarter (docs/decisions.md,
// "The ledger's window").
const Window = 90 * 24 * time.Hour

// segmentName is a segment's name in its peer's directory: the quarter its
// records fall in and 8 hex digits of the sha256 of its bytes, so a
// segment made again with other records never takes an old one's name.
var segmentName = regexp.MustCompile(`^([0-9]{4}-Q[1-4])-([0-9a-f]{8})\.json$`)

// sealing is what the ledger knows of its segments: the records they hold
// (the very pointers in the ledger's maps, so a record a method replaced
// is seen as unsealed, and no key is built per record), and each peer
// file's segments and sealed quarters.
type sealing struct {
	records recordSet
	peers   map[string]*peerSegments // by the peer's file name
	create  map[string][]byte        // segments Save writes, by rel
	remove  map[string]bool          // segments Save removes, by rel
	dropped bool                     // dropSealed found a record twice
	// segs are the segments the ledger holds, by rel, for Save to write
	// the summaries of the groups in dirty (summaryGroup) again; path
	// names the ledger whose segments whole reads.
	segs  map[string]sealedSegment
	dirty map[string]bool
	path  string
	// repaired are the groups whose summary disagreed with a segment
	// (repairGroup); inFile are the sealed records a peer's file held
	// too, equal, when it was read (same), which the file keeps should
	// their summary prove to have lied.
	repaired map[string]bool
	inFile   map[any]struct{}
}

type peerSegments struct {
	names    []string        // rels of its segments
	quarters map[string]bool // quarters sealed
	records  []any           // its sealed records, as in sealing.records
	// partial are the segments read from their summaries, by rel: the
	// records each summary held, whose traces and copies lack what the
	// summary leaves out until whole reads the segment.
	partial map[string]segPart
}

// holds reports whether rec, a record of the ledger's maps, is sealed.
func (s *sealing) holds(rec any) bool {
	if s == nil {
		return false
	}
	return s.records.has(rec)
}

// quarter names the calendar quarter (UTC) of t, "2026-Q1"; a zero time
// falls in the first quarter of year 1, and a time before it there too
// (no record dated after year 9999 encodes, nor is one ever sealed).
func quarter(t time.Time) string {
	t = t.UTC()
	if t.Year() < 1 {
		return "0001-Q1"
	}
	return fmt.Sprintf("%04d-Q%d", t.Year(), (int(t.Month())-1)/3+1)
}

// quarterStartOf is when the quarter of t starts: a time falls in a
// quarter that ended by t exactly when it is before quarterStartOf(t).
func quarterStartOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), time.Month((int(t.Month())-1)/3*3+1), 1, 0, 0, 0, 0, time.UTC)
}

// quarterEndOf is when the quarter of t ends.
func quarterEndOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), time.Month((int(t.Month())-1)/3*3+4), 1, 0, 0, 0, 0, time.UTC)
}

// Times a record is sealed by: when this node first saw a trace (or, for a
// record without it, when its author says it submitted it), when a
// validation says it was made, when we found a mismatch, and when a
// dispute says it was observed.
func traceTime(t *Trace) time.Time {
	if !t.FirstSeen.IsZero() {
		return t.FirstSeen
	}
	return claimedTime(t.Submitted)
}

func validationTime(v *Validation) time.Time { return claimedTime(v.ValidatedAt) }

func disputeTime(d *Dispute) time.Time { return claimedTime(d.ObservedAt) }

// sealFloor is the earliest time a record is sealed by. A validation's
// validated_at, a dispute's observed_at and a trace's submitted date are
// their author's word, any date from year 1: sealed by it, a peer's
// records dated a quarter apart each made a shard segment and its summary
// (2,000 validations, 4,000 files, on a1601b37), and each Compact's
// sealedBy scanned every quarter its peer met for every record. Before
// the floor, before any mesh, a date is sealed as none is: in 0001-Q1.
var sealFloor = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// claimedTime is the time a record its author dated at is sealed by: at,
// or none when at is before sealFloor.
func claimedTime(at time.Time) time.Time {
	if at.Before(sealFloor) {
		return time.Time{}
	}
	return at
}

// Compact seals into segments every record that fell in a quarter ended
// at least Window before now, for each peer whose segments do not yet
// hold that quarter, one shard segment per quarter and shard of the peers
// (shards.go): Save writes those segments once and the peers' files
// without their records. A record of a quarter its peer already sealed (a
// validation dated in the past, an old record a method changed) stays in
// the peer's file. The records, and everything computed from them, stay
// as they were. A loaded ledger of which no peer's file changed since
// Load, whose files held no record of a quarter due, is not passed over
// (mayBeDue).
func (l *Ledger) Compact(now time.Time) error {
	if !l.mayBeDue(now) {
		return nil
	}
	c := l.compactBatch(now)
	if err := l.sealShards(c.batch); err != nil {
		return err
	}
	if l.unsealed != nil {
		l.unsealed.renote(c.recent())
	}
	return nil
}

// compactBatch is Compact's pass at now over every record: its batch, the
// records it seals by peer file and quarter, and the quarters of those it
// leaves unsealed for being too recent.
func (l *Ledger) compactBatch(now time.Time) *compaction {
	c := &compaction{seal: l.seal, before: quarterStartOf(now.Add(-Window)),
		batch: map[string]map[string]*Ledger{}, peers: map[string]*compactPeer{}, quarters: map[int]string{}}
	for k, t := range l.Traces {
		if t != nil {
			c.add(t.AgentURL, traceTime(t), func(p *Ledger) { p.Traces[k] = t })
		}
	}
	for k, v := range l.Validations {
		if v != nil {
			c.add(v.ValidatorURL, validationTime(v), func(p *Ledger) { p.Validations[k] = v })
		}
	}
	for k, r := range l.Rejected {
		if r != nil {
			c.add(r.AgentURL, r.At, func(p *Ledger) { p.Rejected[k] = r })
		}
	}
	for k, d := range l.Disputes {
		if d != nil {
			c.add(d.ReporterURL, disputeTime(d), func(p *Ledger) { p.Disputes[k] = d })
		}
	}
	for k, t := range l.Copies {
		if t != nil {
			c.add(t.AgentURL, traceTime(t), func(p *Ledger) {
				if p.Copies == nil {
					p.Copies = map[string]*Trace{}
				}
				p.Copies[k] = t
			})
		}
	}
	return c
}

// compaction is one Compact's pass over the records. A three-year ledger
// holds millions of records, nearly all in quarters their peers sealed
// long ago, so what it asks of each record is memoized by peer URL and
// quarter number: one string key per record, not one per peer's file
// name, sealed peer and quarter name (docs/decisions.md, "The ledger's
// window").
type compaction struct {
	seal     *sealing
	before   time.Time                     // a record before it fell in a quarter ended Window ago
	batch    map[string]map[string]*Ledger // peer file → quarter → records
	peers    map[string]*compactPeer       // by URL
	quarters map[int]string                // quarterIndex → its name
}

// recent is the quarters, by peer file and quarterIndex with a time in
// each, of the records the pass left for being after before: the
// unsealed records a later Compact may find due (unsealedIndex.renote).
func (c *compaction) recent() map[string]map[int]time.Time {
	out := map[string]map[int]time.Time{}
	for _, p := range c.peers {
		for _, q := range p.recent {
			noteQuarter(out, p.name, q.at)
		}
	}
	return out
}

// compactPeer is what a compaction knows of one peer URL: its file name
// and, for each quarter number it met, whether the peer sealed it.
type compactPeer struct {
	name   string
	ps     *peerSegments
	sealed []quarterSealed
	recent []quarterSeen // the quarters of its records after before
}

// quarterSeen is a quarter, by quarterIndex, and a time in it.
type quarterSeen struct {
	index int
	at    time.Time
}

// noteRecent notes the quarter of at, a record's time after the
// compaction's before. A peer's records after it fall in two or three
// quarters, so a short list beats a map.
func (p *compactPeer) noteRecent(at time.Time) {
	qi := quarterIndex(at)
	for _, q := range p.recent {
		if q.index == qi {
			return
		}
	}
	p.recent = append(p.recent, quarterSeen{index: qi, at: at})
}

type quarterSealed struct {
	index  int
	sealed bool
}

// add puts the record that put adds, of peer url at time at, into the
// batch when its quarter ended at least Window ago and its peer has not
// sealed that quarter.
func (c *compaction) add(url string, at time.Time, put func(*Ledger)) {
	if !at.Before(c.before) {
		c.peer(url).noteRecent(at)
		return
	}
	qi := quarterIndex(at)
	p := c.peer(url)
	// A sealed record is in a sealed quarter of its peer, so this
	// check, which builds no key, passes over all of them.
	if c.sealedBy(p, qi, at) {
		return
	}
	q := c.quarter(qi, at)
	if c.batch[p.name] == nil {
		c.batch[p.name] = map[string]*Ledger{}
	}
	if c.batch[p.name][q] == nil {
		c.batch[p.name][q] = New()
	}
	put(c.batch[p.name][q])
}

// peer is what the compaction knows of url.
func (c *compaction) peer(url string) *compactPeer {
	p, ok := c.peers[url]
	if !ok {
		name := statefile.PeerFileName(url)
		p = &compactPeer{name: name, ps: c.seal.peer(name)}
		c.peers[url] = p
	}
	return p
}

// sealedBy reports whether p sealed the quarter numbered qi, which holds at.
// A peer meets a dozen quarters at most, so a short list beats a map.
func (c *compaction) sealedBy(p *compactPeer, qi int, at time.Time) bool {
	if p.ps == nil {
		return false
	}
	for _, s := range p.sealed {
		if s.index == qi {
			return s.sealed
		}
	}
	sealed := p.ps.quarters[c.quarter(qi, at)]
	p.sealed = append(p.sealed, quarterSealed{index: qi, sealed: sealed})
	return sealed
}

// quarter is the name of the quarter numbered qi, which holds at.
func (c *compaction) quarter(qi int, at time.Time) string {
	q, ok := c.quarters[qi]
	if !ok {
		q = quarter(at)
		c.quarters[qi] = q
	}
	return q
}

// quarterIndex numbers the calendar quarter (UTC) of t: year*4 + quarter-1.
// Times before year 1 get numbers of their own, but quarter names them
// all 0001-Q1, as Compact seals them.
func quarterIndex(t time.Time) int {
	y, m, _ := t.UTC().Date()
	return y*4 + (int(m)-1)/3
}

// sealShards makes the shard segments of batch, records by peer file and
// quarter: one per quarter and shard, in parts (shardParts).
func (l *Ledger) sealShards(batch map[string]map[string]*Ledger) error {
	groups := map[string]map[string]*Ledger{} // quarter "/" shard → peer file → records
	for name, quarters := range batch {
		for q, part := range quarters {
			g := q + "/" + shardOf(peerDir(name))
			if groups[g] == nil {
				groups[g] = map[string]*Ledger{}
			}
			groups[g][name] = part
		}
	}
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		q, shard, _ := strings.Cut(g, "/")
		if err := l.sealShard(q, shard, groups[g]); err != nil {
			return err
		}
	}
	return nil
}

// sealShard makes the shard segment of quarter q and shard of peers, the
// records of each by its file name.
func (l *Ledger) sealShard(q, shard string, peers map[string]*Ledger) error {
	entries := make(map[string]json.RawMessage, len(peers))
	for name, part := range peers {
		data, err := json.Marshal(part.normalizedCopy())
		if err != nil {
			return fmt.Errorf("seal %s of %s: %w", q, name, err)
		}
		entries[peerDir(name)] = data
	}
	for i, data := range shardParts(entries) {
		rel := shardRel(shard, q, i, data)
		// Its summary holds the records as its bytes give them, as a
		// reader who finds it stale derives it again.
		seg, err := decodeShard(rel, data)
		if err != nil {
			return fmt.Errorf("seal %s: %w", rel, err)
		}
		s := l.sealer()
		s.create[rel] = data
		delete(s.remove, rel)
		s.segs[rel] = sealedSegment{rel: rel, size: int64(len(data)), peers: fullParts(seg)}
		s.dirty[summaryGroup(rel)] = true
		for name := range seg {
			l.sealed(rel, q, name, peers[name])
		}
	}
	return nil
}

// sealed notes part, the records of peer file name, as sealed into the
// segment rel of quarter q.
func (l *Ledger) sealed(rel, q, name string, part *Ledger) {
	s := l.sealer()
	ps := s.peerOrNew(name)
	ps.names = append(ps.names, rel)
	ps.quarters[q] = true
	part.each(func(rec any) {
		s.records.add(rec)
		ps.records = append(ps.records, rec)
	})
	// Sealing changes no record, so Edits stays: what was computed from
	// the records holds.
	l.fileChanged(name)
}

// unseal returns the records of the segments of peer file name to its
// file at the next Save, which removes its own segments and writes each
// shard segment that holds it again without it, under a new name: a
// method is about to delete or move one of them, which a segment, never
// changed, cannot. A shard segment that cannot be read fails the next
// Save, which writes nothing.
func (l *Ledger) unseal(name string) {
	l.whole(name)
	ps := l.seal.peer(name)
	if ps == nil {
		return
	}
	rest := map[string][]byte{} // shard segment → its bytes without the peer
	for _, rel := range ps.names {
		if isShardSegment(rel) {
			data, err := l.withoutPeer(rel, name)
			if err != nil {
				l.fail(fmt.Errorf("unseal %s: %w", name, err))
				return
			}
			rest[rel] = data
		}
	}
	for _, rec := range ps.records {
		l.seal.records.remove(rec)
	}
	delete(l.seal.peers, name)
	for _, rel := range ps.names {
		l.giveUp(rel)
		if data, ok := rest[rel]; ok && data != nil {
			l.reseal(rel, data)
		}
	}
	l.fileChanged(name)
}

// giveUp drops the segment rel, to be removed at the next Save unless
// it was never written.
func (l *Ledger) giveUp(rel string) {
	s := l.seal
	delete(s.segs, rel)
	s.dirty[summaryGroup(rel)] = true
	if _, pending := s.create[rel]; pending {
		delete(s.create, rel)
	} else {
		s.remove[rel] = true
	}
}

// withoutPeer is the bytes of the shard segment rel without the records
// of peer file name, nil when it held no other peer.
func (l *Ledger) withoutPeer(rel, name string) ([]byte, error) {
	data, err := l.segmentBytes(rel)
	if err != nil {
		return nil, err
	}
	entries, err := shardEntries(rel, data)
	if err != nil {
		return nil, fmt.Errorf("segment %s: %w", rel, err)
	}
	delete(entries, peerDir(name))
	if len(entries) == 0 {
		return nil, nil
	}
	return encodeShard(entries), nil
}

// reseal puts data, the shard segment old without a peer, in its place
// under its own name, for the peers still in it.
func (l *Ledger) reseal(old string, data []byte) {
	m := shardSegmentName.FindStringSubmatch(path.Base(old))
	part, _ := strconv.Atoi(m[2])
	rel := shardRel(strings.TrimPrefix(path.Dir(old), "shard-"), m[1], part, data)
	seg, err := decodeShard(rel, data)
	if err != nil { // it decoded whole before one peer was taken out
		l.fail(fmt.Errorf("reseal %s: %w", old, err))
		return
	}
	s := l.seal
	s.create[rel] = data
	delete(s.remove, rel)
	s.segs[rel] = sealedSegment{rel: rel, size: int64(len(data)), peers: fullParts(seg)}
	s.dirty[summaryGroup(rel)] = true
	for name := range seg {
		ps := s.peers[name]
		if ps == nil {
			continue
		}
		for i, r := range ps.names {
			if r == old {
				ps.names[i] = rel
			}
		}
		if p, ok := ps.partial[old]; ok {
			delete(ps.partial, old)
			ps.partial[rel] = p
		}
	}
}

// movedFrom unseals the segments of the peer at from when the sealed
// record old is replaced by a record of another peer under its key: two
// peers' segments must never hold one key, since which of them is read
// last would decide which record the ledger holds.
func (l *Ledger) movedFrom(from, to string, old any) {
	if from != to && l.seal.holds(old) {
		l.unseal(statefile.PeerFileName(from))
	}
}

// replaced is movedFrom for the sealed record old, dated oldAt, replaced
// under its key by a record dated newAt: it unseals the peer at from too
// when the new record falls in an earlier quarter. Load reads a peer's
// segments by quarter, the later last, so the old record, left in a
// later quarter's segment, would win over its replacement once Compact
// sealed that in an earlier one. A replacement of the same quarter or a
// later one wins as it is: from the peer's file, read after the
// segments, or from a later segment.
func (l *Ledger) replaced(from, to string, old any, oldAt, newAt time.Time) {
	if (from != to || quarterIndex(newAt) < quarterIndex(oldAt)) && l.seal.holds(old) {
		l.unseal(statefile.PeerFileName(from))
	}
}

func (s *sealing) peer(name string) *peerSegments {
	if s == nil {
		return nil
	}
	return s.peers[name]
}

func (l *Ledger) sealer() *sealing {
	if l.seal == nil {
		l.seal = &sealing{records: newRecordSet(), peers: map[string]*peerSegments{}, create: map[string][]byte{},
			remove: map[string]bool{}, segs: map[string]sealedSegment{}, dirty: map[string]bool{}, repaired: map[string]bool{}, inFile: map[any]struct{}{}}
	}
	return l.seal
}

func (s *sealing) peerOrNew(name string) *peerSegments {
	ps := s.peers[name]
	if ps == nil {
		ps = &peerSegments{quarters: map[string]bool{}, partial: map[string]segPart{}}
		s.peers[name] = ps
	}
	return ps
}

// each calls f with every record of l.
func (l *Ledger) each(f func(rec any)) {
	for _, t := range l.Traces {
		f(t)
	}
	for _, v := range l.Validations {
		f(v)
	}
	for _, r := range l.Rejected {
		f(r)
	}
	for _, d := range l.Disputes {
		f(d)
	}
	for _, t := range l.Copies {
		f(t)
	}
}

// loadSegment merges the segment rel into l and notes its records as
// sealed, and returns them by peer file name.
func (l *Ledger) loadSegment(rel string, data []byte) (map[string]*Ledger, error) {
	if err := checkSegmentName(rel); err != nil {
		return nil, err
	}
	if err := checkSegmentBytes(rel, data); err != nil {
		return nil, err
	}
	peers, err := decodeSegment(rel, data)
	if err != nil {
		return nil, err
	}
	if l.strs != nil {
		for _, p := range peers {
			l.strs.ledger(p)
		}
	}
	l.addSealed(rel, int64(len(data)), peers, false)
	return peers, nil
}

// decodeSegment reads the records of the segment rel, by peer file name:
// a peer's segment holds its directory's peer's, a shard segment says
// whose each are.
func decodeSegment(rel string, data []byte) (map[string]*Ledger, error) {
	if isShardSegment(rel) {
		return decodeShard(rel, data)
	}
	in, err := decode(data)
	if err != nil {
		return nil, err
	}
	return map[string]*Ledger{path.Dir(rel) + ".json": in}, nil
}

// checkSegmentName checks that rel names a segment: a peer's, or a
// shard's.
func checkSegmentName(rel string) error {
	name := path.Base(rel)
	if isShardSegment(rel) {
		if shardSegmentName.FindStringSubmatch(name) == nil {
			return fmt.Errorf("%q is not a shard segment's name (quarter-part-hash.json)", name)
		}
		return nil
	}
	if segmentName.FindStringSubmatch(name) == nil {
		return fmt.Errorf("%q is not a segment's name (quarter-hash.json)", name)
	}
	return nil
}

// segmentQuarter and segmentHash are the quarter and the 8 hex digits of
// the segment rel, whose name checkSegmentName accepted.
func segmentQuarter(rel string) string { return segmentParts(rel)[1] }
func segmentHash(rel string) string {
	m := segmentParts(rel)
	return m[len(m)-1]
}

func segmentParts(rel string) []string {
	if isShardSegment(rel) {
		return shardSegmentName.FindStringSubmatch(path.Base(rel))
	}
	return segmentName.FindStringSubmatch(path.Base(rel))
}

// checkSegmentBytes checks that data are the bytes segment rel was named
// for: a segment's name carries the first four bytes of its sha256, and a
// segment is written once, never changed, so bytes that hash otherwise
// (an edit, even one that keeps the size a summary is matched by) make
// it corrupt, for every reader alike.
func checkSegmentBytes(rel string, data []byte) error {
	sum := sha256.Sum256(data)
	if checkSegmentName(rel) != nil || segmentHash(rel) != hex.EncodeToString(sum[:4]) {
		return fmt.Errorf("segment %s: its bytes are not those it was written with (their sha256 begins %x; a segment is never changed: restore it from git)", rel, sum[:4])
	}
	return nil
}

// addSealed merges peers, the records of the segment rel, size bytes
// long, by peer file name, their strings shared already, into l and
// notes them as sealed; summarized when its summary gave them, each
// then partial until whole reads the segment, and held as a range
// (segPart). Peers go in by name, so of two holding one key (none a node
// writes) the last wins, for every reader alike.
func (l *Ledger) addSealed(rel string, size int64, peers map[string]*Ledger, summarized bool) {
	s := l.sealer()
	parts := make(map[string]segPart, len(peers))
	q := segmentQuarter(rel)
	for _, name := range slices.Sorted(maps.Keys(peers)) {
		l.put(peers[name])
		ps := s.peerOrNew(name)
		ps.names = append(ps.names, rel)
		ps.quarters[q] = true
		parts[name] = s.note(ps, peers[name], summarized)
		if summarized {
			ps.partial[rel] = parts[name]
		}
	}
	s.segs[rel] = sealedSegment{rel: rel, size: size, peers: parts}
}

// saveSegments writes the segments Compact made, several at once as
// statefile.Write does, and reports whether it wrote any.
func (l *Ledger) saveSegments(p string) (bool, error) {
	if l.seal == nil || len(l.seal.create) == 0 {
		return false, nil
	}
	var g errgroup.Group
	g.SetLimit(segmentsParallel)
	for _, rel := range slices.Sorted(maps.Keys(l.seal.create)) {
		data := l.seal.create[rel]
		g.Go(func() error { return statefile.CreateSegment(p, rel, data) })
	}
	if err := g.Wait(); err != nil {
		return true, err
	}
	clear(l.seal.create)
	return true, nil
}

// saveSummaries writes again the summaries of the groups whose segments
// changed or whose summary Load found stale, after the segments are
// written and removed, and reports whether it wrote any. A crash before
// leaves a summary of other segments, which Load finds stale.
func (l *Ledger) saveSummaries(p string) (bool, error) {
	if l.seal == nil || len(l.seal.dirty) == 0 {
		return false, nil
	}
	groups := map[string][]sealedSegment{}
	for rel, seg := range l.seal.segs {
		if g := summaryGroup(rel); l.seal.dirty[g] {
			groups[g] = append(groups[g], seg)
		}
	}
	changed := false
	for _, g := range slices.Sorted(maps.Keys(l.seal.dirty)) {
		wrote, err := writeSummary(p, g, groups[g])
		changed = changed || wrote
		if err != nil {
			return changed, err
		}
		delete(l.seal.dirty, g)
	}
	return changed, nil
}

// writeSummary writes the summary g of segs, or removes it when there
// are none, and reports whether that changed it.
func writeSummary(p, g string, segs []sealedSegment) (bool, error) {
	if len(segs) == 0 {
		return statefile.RemoveSummary(p, g)
	}
	slices.SortFunc(segs, func(a, b sealedSegment) int { return strings.Compare(a.rel, b.rel) })
	data, err := encodeSummary(segs)
	if err != nil {
		return false, err
	}
	return statefile.WriteSummary(p, g, data)
}

// segmentsParallel is how many segments saveSegments writes at once: each
// waits for its fsync, and a quarter's end seals one per shard, or more.
const segmentsParallel = 16

// removeSegments removes the segments unseal gave up: after the peers'
// files hold their records again.
func (l *Ledger) removeSegments(p string) (bool, error) {
	if l.seal == nil {
		return false, nil
	}
	changed := false
	for _, rel := range slices.Sorted(maps.Keys(l.seal.remove)) {
		if err := statefile.RemoveSegment(p, rel); err != nil {
			return changed, err
		}
		changed = true
		delete(l.seal.remove, rel)
	}
	return changed, nil
}

// normalizedCopy is l with every record as Save writes it.
func (l *Ledger) normalizedCopy() *Ledger {
	out := New()
	for k, t := range l.Traces {
		out.Traces[k] = t.normalized()
	}
	for k, v := range l.Validations {
		c := *v
		c.ValidatedAt = utc(v.ValidatedAt)
		out.Validations[k] = &c
	}
	for k, r := range l.Rejected {
		c := *r
		c.At = utc(r.At)
		out.Rejected[k] = &c
	}
	for k, d := range l.Disputes {
		out.Disputes[k] = d.normalized()
	}
	for _, t := range l.Copies {
		out.AddCopy(t.normalized())
	}
	return out
}

// dropSealed removes from in, a peer's file just decoded, the records
// equal to the sealed record l holds under their key, and notes that it
// did.
func (l *Ledger) dropSealed(in *Ledger) {
	s := l.seal
	for k, t := range in.Traces {
		if same(s, l.Traces[k], t) {
			delete(in.Traces, k)
		}
	}
	for k, v := range in.Validations {
		if same(s, l.Validations[k], v) {
			delete(in.Validations, k)
		}
	}
	for k, r := range in.Rejected {
		if same(s, l.Rejected[k], r) {
			delete(in.Rejected, k)
		}
	}
	for k, d := range in.Disputes {
		if same(s, l.Disputes[k], d) {
			delete(in.Disputes, k)
		}
	}
	for k, t := range in.Copies {
		if same(s, l.Copies[k], t) {
			delete(in.Copies, k)
		}
	}
}

// same reports whether rec equals old, the record l holds under its key,
// and old is sealed, noting it. A trace read from a summary lacks its
// title and citations, so one in the file that has them is kept there,
// as the newer record: a record is never dropped for equalling only what
// a summary holds of it, since the file may hold its only newer title.
func same[T any](s *sealing, old, rec *T) bool {
	if old == nil || !s.holds(old) || !reflect.DeepEqual(old, rec) {
		return false
	}
	s.dropped = true
	s.inFile[old] = struct{}{}
	return true
}

// NextCompaction is the first time after now at which Compact may seal a
// quarter it could not seal at now: when the quarter that holds
// now - Window ends, plus Window. Until then, a Compact that ran at now
// finds nothing more to seal, whatever the ledger holds.
func NextCompaction(now time.Time) time.Time {
	return quarterEndOf(now.Add(-Window)).Add(Window)
}
