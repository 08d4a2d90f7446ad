package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

// Field counts of a summary's record lines after their tag (sumwrite.go).
const (
	traceFields      = 15 // and three per verdict
	validationFields = 11 + validation.NumDimensions
)

// summaryReader reads a summary's body, a line at a time, into records
// built directly: no reflection, and each repeated string (a peer's name
// and URL, a type, a category, a status) held once, by strs.
type summaryReader struct {
	rest  []byte
	f     [][]byte // the fields of the line read, after its tag
	strs  interner
	names map[string]string // peer URL → its file name
	err   error
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
	out := make([]map[string]*Ledger, 0, len(files))
	var p *summaryPeer
	for tag := r.line(); tag != 0; tag = r.line() {
		switch {
		case tag == 'S' && len(r.f) == 0:
			if err := p.done(); err != nil {
				return nil, err
			}
			if len(out) == len(files) {
				return nil, fmt.Errorf("more segments than the %d it names", len(files))
			}
			out, p = append(out, map[string]*Ledger{}), nil
		case tag == 'P' && len(out) > 0:
			if err := p.done(); err != nil {
				return nil, err
			}
			var err error
			if p, err = r.peer(files[len(out)-1].Rel, out[len(out)-1]); err != nil {
				return nil, err
			}
		case p != nil:
			if err := r.record(tag, p); err != nil {
				return nil, fmt.Errorf("peer %s: %w", p.name, err)
			}
		default:
			return nil, fmt.Errorf("a line %q out of place", tag)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if err := p.done(); err != nil {
		return nil, err
	}
	if len(out) != len(files) {
		return nil, fmt.Errorf("%d segments of the %d it names", len(out), len(files))
	}
	return out, nil
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
// records as its peer line said.
func (p *summaryPeer) done() error {
	if p == nil || len(p.l.Traces) == p.traces && len(p.l.Copies) == p.copies && len(p.l.Validations) == p.validations {
		return nil
	}
	return fmt.Errorf("peer %s: %d traces, %d copies and %d validations, not the %d, %d and %d it says",
		p.name, len(p.l.Traces), len(p.l.Copies), len(p.l.Validations), p.traces, p.copies, p.validations)
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
	if !p.shard && p.name != path.Dir(rel)+".json" || seg[p.name] != nil || len(seg) > 0 && !p.shard {
		return nil, fmt.Errorf("peer %q does not belong in %s", p.name, rel)
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
	// Sized once: the counts, bounded by the lines left, so that a
	// damaged count cannot ask for more than the body could hold.
	p.l = &Ledger{Traces: make(map[manifest.Hash]*Trace, min(p.traces, len(r.rest)/16)),
		Validations: make(map[string]*Validation, min(p.validations, len(r.rest)/16)),
		Rejected:    map[string]*Rejection{}, Disputes: map[string]*Dispute{}}
	if p.copies > 0 {
		p.l.Copies = make(map[string]*Trace, min(p.copies, len(r.rest)/16))
	}
	seg[p.name] = p.l
	return p, nil
}

// record reads a record line, tagged tag, into p.
func (r *summaryReader) record(tag byte, p *summaryPeer) error {
	var url string
	switch tag {
	case 'T', 'C':
		key, t := r.trace(p)
		if r.err != nil {
			return r.err
		}
		url = t.AgentURL
		if tag == 'T' {
			p.l.Traces[key] = t
		} else if key != t.Hash {
			return fmt.Errorf("copy %s under the key %s", t.Hash, key)
		} else if p.l.Copies == nil {
			return errors.New("a copy where its peer line says none")
		} else {
			k := CopyKey(t.AgentURL, t.Hash)
			t.Hash = manifest.Hash(suffixOf(k, string(t.Hash)))
			p.l.Copies[k] = t
		}
	case 'V':
		v := r.validation(p)
		if r.err != nil {
			return r.err
		}
		url = v.ValidatorURL
		p.l.Validations[sharedKey(v)] = v
	case 'R', 'D':
		var err error
		if url, err = r.other(tag, p); err != nil {
			return err
		}
	default:
		return fmt.Errorf("a line tagged %q", tag)
	}
	return r.ofPeer(p, url)
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

// trace reads a trace or copy line of p, and its key.
func (r *summaryReader) trace(p *summaryPeer) (manifest.Hash, *Trace) {
	f := r.f
	if len(f) < traceFields || (len(f)-traceFields)%3 != 0 {
		r.fail(fmt.Errorf("a trace line of %d fields", len(f)))
		return "", nil
	}
	t := &Trace{Seq: manifest.Seq(r.int(f[3])), Hash: manifest.Hash(r.plain(f[4])),
		Type: r.shared(f[7]), Category: r.shared(f[8]), Status: manifest.Status(r.shared(f[9])),
		Submitted: r.time(f[10]), FirstSeen: r.time(f[11]), Verified: r.bool(f[13]), TakenDown: r.shared(f[14])}
	t.Agent, t.AgentURL = r.def(f[1], p.agent), r.def(f[2], p.url)
	if err := t.Fingerprint.UnmarshalText(f[12]); err != nil {
		r.fail(err)
	}
	r.fileAndURL(t, f[5], f[6])
	for v := f[traceFields:]; len(v) > 0; v = v[3:] {
		t.Verdicts = append(t.Verdicts, Verdict{Agent: r.shared(v[0]), Seq: int(r.int(v[1])), Result: r.shared(v[2])})
	}
	key := t.Hash
	if len(f[0]) > 0 {
		key = manifest.Hash(r.def(f[0], string(t.Hash)))
	}
	return key, t
}

// fileAndURL sets t's file and URL from their fields: a URL that is the
// default, its agent's URL and the file, holds the file's bytes, shared.
func (r *summaryReader) fileAndURL(t *Trace, file, url []byte) {
	switch {
	case string(url) == noDefault:
		t.File = r.plain(file)
		return
	case len(url) > 0:
		t.File, t.URL = r.plain(file), r.plain(url)
		return
	}
	if bytes.IndexByte(file, '\\') >= 0 {
		t.File = r.plain(file)
		t.URL = t.AgentURL + t.File
		return
	}
	t.URL = t.AgentURL + string(file)
	t.File = t.URL[len(t.AgentURL):]
}

// validation reads a validation line of p.
func (r *summaryReader) validation(p *summaryPeer) *Validation {
	f := r.f
	if len(f) != validationFields {
		r.fail(fmt.Errorf("a validation line of %d fields, not %d", len(f), validationFields))
		return nil
	}
	v := &Validation{Validator: r.def(f[0], p.agent), ValidatorURL: r.def(f[1], p.url), TraceURL: r.plain(f[2]),
		TraceHash: manifest.Hash(r.plain(f[3])), Result: r.shared(f[4]), Total: int(r.int(f[5]))}
	for i := range v.Scores {
		v.Scores[i] = int(r.int(f[6+i]))
	}
	const rest = 6 + validation.NumDimensions
	v.HasScores, v.ValidatedAt = r.bool(f[rest]), r.time(f[rest+1])
	switch source, sourceURL := f[rest+2], f[rest+3]; {
	case len(source) > 0 && len(sourceURL) > 0:
		r.fail(errors.New("a validation with both a source and a source URL"))
	case len(source) > 0:
		v.SourceURL = v.ValidatorURL + r.plain(source)
	default:
		v.SourceURL = r.plain(sourceURL)
	}
	v.SourceHash = manifest.Hash(r.plain(f[rest+4]))
	return v
}

// sharedKey is v's key, v's source hash made the key's last bytes
// (suffixOf).
func sharedKey(v *Validation) string {
	k := v.Key()
	v.SourceHash = manifest.Hash(suffixOf(k, string(v.SourceHash)))
	return k
}

// other reads a rejection or dispute line into p, and returns its URL.
func (r *summaryReader) other(tag byte, p *summaryPeer) (string, error) {
	switch {
	case tag == 'R' && len(r.f) == 2:
		var rej *Rejection
		k, err := r.str(r.f[0], false)
		if err == nil {
			err = json.Unmarshal(r.f[1], &rej)
		}
		if err != nil || rej == nil {
			return "", fmt.Errorf("rejection: %v", err)
		}
		p.l.Rejected[k] = rej
		return rej.AgentURL, nil
	case tag == 'D' && len(r.f) == 1:
		var d *Dispute
		if err := json.Unmarshal(r.f[0], &d); err != nil || d == nil {
			return "", fmt.Errorf("dispute: %v", err)
		}
		p.l.Disputes[d.Key()] = d
		return d.ReporterURL, nil
	}
	return "", fmt.Errorf("a line tagged %q of %d fields", tag, len(r.f))
}

// fail keeps the first error of the line read.
func (r *summaryReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// str is the string field b unescaped, held once when shared.
func (r *summaryReader) str(b []byte, shared bool) (string, error) {
	if bytes.IndexByte(b, '\\') < 0 {
		if shared {
			return r.strs.bytes(b), nil
		}
		return string(b), nil
	}
	s, err := unescape(b)
	if err != nil {
		return "", err
	}
	if shared {
		return r.strs.of(s), nil
	}
	return s, nil
}

// plain is the string field b, its own copy; shared, held once.
func (r *summaryReader) plain(b []byte) string {
	s, err := r.str(b, false)
	r.fail(err)
	return s
}

func (r *summaryReader) shared(b []byte) string {
	s, err := r.str(b, true)
	r.fail(err)
	return s
}

// def is the field b of a string whose default is def (sumwrite.go).
func (r *summaryReader) def(b []byte, def string) string {
	switch {
	case len(b) == 0:
		return def
	case string(b) == noDefault:
		return ""
	}
	return r.shared(b)
}

// unescape is b with \\, \t and \n undone.
func unescape(b []byte) (string, error) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			out = append(out, b[i])
			continue
		}
		if i++; i == len(b) {
			return "", errors.New("a field ends in a backslash")
		}
		switch b[i] {
		case '\\':
			out = append(out, '\\')
		case 't':
			out = append(out, '\t')
		case 'n':
			out = append(out, '\n')
		default:
			return "", fmt.Errorf("an escape \\%c", b[i])
		}
	}
	return string(out), nil
}

// int is the decimal field b, 0 when empty.
func (r *summaryReader) int(b []byte) int64 {
	if len(b) == 0 {
		return 0
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	r.fail(err)
	return n
}

// count is the field b of a count of records.
func (r *summaryReader) count(b []byte) int {
	n := r.int(b)
	if n < 0 {
		r.fail(fmt.Errorf("a count of %d", n))
		return 0
	}
	return int(min(n, 1<<40))
}

func (r *summaryReader) bool(b []byte) bool {
	if len(b) > 0 && string(b) != "1" {
		r.fail(fmt.Errorf("a bool %.20q", b))
	}
	return len(b) > 0
}

func (r *summaryReader) time(b []byte) time.Time {
	var t time.Time
	if len(b) > 0 {
		r.fail(t.UnmarshalText(b))
	}
	return t
}
