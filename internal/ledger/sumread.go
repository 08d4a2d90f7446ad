package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// summaryReader reads a summary's body (sumwrite.go), a line at a time,
// into records built directly: no reflection, and each repeated string (a
// peer's name and URL, a type, a category, a status) held once, by strs.
// It takes only what the segments' own reader (decodeSegment) would give:
// a body that says otherwise is stale, never a crash.
type summaryReader struct {
	rest  []byte
	f     [][]byte // the fields of the line read, after its tag
	strs  interner
	names map[string]string // peer URL → its file name
	err   error

	files []statefile.SegmentFile // the segments the header names
	out   []map[string]*Ledger    // their records read so far, by peer file name
	p     *summaryPeer            // the peer whose records are being read
}

func newSummaryReader(body []byte, strs interner) *summaryReader {
	if strs == nil {
		strs = interner{}
	}
	return &summaryReader{rest: body, strs: strs, names: map[string]string{}}
}

// line reads the next line into r.f and returns its tag, 0 at the end.
func (r *summaryReader) line() byte {
	if len(r.rest) == 0 || r.err != nil {
		return 0
	}
	line, rest, ok := bytes.Cut(r.rest, []byte{'\n'})
	if !ok {
		r.err = errors.New("its last line does not end")
		return 0
	}
	r.rest = rest
	if len(line) == 0 {
		r.err = errors.New("an empty line")
		return 0
	}
	r.f = r.f[:0]
	for rest := line[1:]; len(rest) > 0; {
		if rest[0] != '\t' {
			r.err = fmt.Errorf("line %.20q: no tab after its tag", line)
			return 0
		}
		field, _, _ := bytes.Cut(rest[1:], []byte{'\t'})
		r.f = append(r.f, field)
		rest = rest[1+len(field):]
	}
	return line[0]
}

// segments reads the records of each of files, by peer file name.
func (r *summaryReader) segments(files []statefile.SegmentFile) ([]map[string]*Ledger, error) {
	r.files, r.out = files, make([]map[string]*Ledger, 0, len(files))
	for tag := r.line(); tag != 0; tag = r.line() {
		if err := r.read(tag); err != nil {
			return nil, err
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if err := r.endSegment(); err != nil {
		return nil, err
	}
	if len(r.out) != len(files) {
		return nil, fmt.Errorf("%d segments of the %d it names", len(r.out), len(files))
	}
	return r.out, nil
}

// read reads the line just read, tagged tag.
func (r *summaryReader) read(tag byte) error {
	switch {
	case tag == 'S' && len(r.f) == 0:
		return r.startSegment()
	case tag == 'P' && len(r.out) > 0:
		return r.startPeer()
	case r.p != nil:
		if err := r.record(tag, r.p); err != nil {
			return fmt.Errorf("peer %s: %w", r.p.name, err)
		}
		return nil
	}
	return fmt.Errorf("a line %q out of place", tag)
}

// startSegment ends the segment read so far and starts the next.
func (r *summaryReader) startSegment() error {
	if err := r.endSegment(); err != nil {
		return err
	}
	if len(r.out) == len(r.files) {
		return fmt.Errorf("more segments than the %d it names", len(r.files))
	}
	r.out = append(r.out, map[string]*Ledger{})
	return nil
}

// endSegment checks the segment read so far, if any: its last peer's
// records all there, and a peer at least, as every segment holds.
func (r *summaryReader) endSegment() error {
	if len(r.out) == 0 {
		return nil
	}
	if err := r.p.done(); err != nil {
		return err
	}
	r.p = nil
	if i := len(r.out) - 1; len(r.out[i]) == 0 {
		return fmt.Errorf("segment %s holds no peer", r.files[i].Rel)
	}
	return nil
}

// startPeer ends the peer read so far and starts the one of the peer
// line just read.
func (r *summaryReader) startPeer() error {
	if err := r.p.done(); err != nil {
		return err
	}
	i := len(r.out) - 1
	p, err := r.peer(r.files[i].Rel, r.out[i])
	if err != nil {
		return err
	}
	r.p = p
	return nil
}

// summaryPeer is the peer whose records a summary's lines are read into.
type summaryPeer struct {
	name, agent, url string
	l                *Ledger
	shard            bool // in a shard segment: every record's URL must be the peer's
	traces, copies   int  // how many its peer line says follow
	validations      int
}

// done checks that p, nil before a segment's first peer, read as many
// records as its peer line said, and, in a shard segment, one at least
// (decodeShard refuses a peer with none).
func (p *summaryPeer) done() error {
	switch {
	case p == nil:
		return nil
	case len(p.l.Traces) != p.traces || len(p.l.Copies) != p.copies || len(p.l.Validations) != p.validations:
		return fmt.Errorf("peer %s: %d traces, %d copies and %d validations, not the %d, %d and %d it says",
			p.name, len(p.l.Traces), len(p.l.Copies), len(p.l.Validations), p.traces, p.copies, p.validations)
	case p.shard && p.l.empty():
		return fmt.Errorf("peer %s holds no records", p.name)
	}
	return nil
}

// peer reads a peer line of the segment rel into seg, its records by
// peer file name so far.
func (r *summaryReader) peer(rel string, seg map[string]*Ledger) (*summaryPeer, error) {
	if len(r.f) != 6 {
		return nil, fmt.Errorf("a peer line of %d fields, not 6", len(r.f))
	}
	p := &summaryPeer{shard: isShardSegment(rel)}
	var err error
	if p.name, err = r.str(r.f[0], false); err != nil {
		return nil, err
	}
	if err := belongs(rel, p.name, p.shard, seg); err != nil {
		return nil, err
	}
	p.agent, err = r.str(r.f[1], true)
	if err == nil {
		p.url, err = r.str(r.f[2], true)
	}
	if err != nil {
		return nil, err
	}
	p.traces, p.copies, p.validations = r.count(r.f[3]), r.count(r.f[4]), r.count(r.f[5])
	if r.err != nil {
		return nil, r.err
	}
	p.l = r.sized(p)
	seg[p.name] = p.l
	return p, nil
}

// belongs checks that the peer of file name may be read into seg, the
// peers of the segment rel (a shard segment when shard) read so far, as
// the segment's own reader files them (decodeSegment): a peer's segment
// holds its directory's peer alone, a shard segment peers of its shard,
// each once.
func belongs(rel, name string, shard bool, seg map[string]*Ledger) error {
	// A peer's segment has one name, so a second peer line in it fails
	// the first check. A shard's peer named otherwise than a peer's file
	// holds no record ofPeer takes, and done refuses a shard's peer with
	// none.
	ok := seg[name] == nil
	if dir := path.Dir(rel); shard {
		ok = ok && inShard(peerDir(name), strings.TrimPrefix(dir, "shard-"))
	} else {
		ok = ok && name == dir+".json"
	}
	if !ok {
		return fmt.Errorf("peer %q does not belong in %s", name, rel)
	}
	return nil
}

// sized is the ledger of p's records, its maps sized once by the counts
// its line gives, bounded by the lines left (a record's line is longer
// than 16 bytes), so that a damaged count cannot ask for more than the
// body could hold. Its rejections and disputes, which the line does not
// count and few peers have, get a map only with their first record
// (rejection, dispute): a summary holds a ledger for each peer of each
// segment, 110,000 after three years of 10,000 agents, and each empty
// map cost 48 bytes.
func (r *summaryReader) sized(p *summaryPeer) *Ledger {
	bound := len(r.rest) / 16
	l := &Ledger{Traces: make(map[manifest.Hash]*Trace, min(p.traces, bound)),
		Validations: make(map[string]*Validation, min(p.validations, bound))}
	if p.copies > 0 {
		l.Copies = make(map[string]*Trace, min(p.copies, bound))
	}
	return l
}

// ofPeer checks that url, a record's peer's, is p's, in a shard
// segment: as a segment's loader checks (decodeShard).
func (r *summaryReader) ofPeer(p *summaryPeer, url string) error {
	if !p.shard {
		return nil
	}
	name, ok := r.names[url]
	if !ok {
		name = statefile.PeerFileName(url)
		r.names[url] = name
	}
	if name != p.name {
		return fmt.Errorf("a record of %s", url)
	}
	return nil
}
