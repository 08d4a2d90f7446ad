package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/validation"
)

// Field counts of a summary's record lines after their tag (sumwrite.go).
const (
	traceFields      = 15 // and three per verdict
	validationFields = 11 + validation.NumDimensions
)

// record reads a record line, tagged tag, into p.
func (r *summaryReader) record(tag byte, p *summaryPeer) error {
	var url string
	var err error
	switch tag {
	case 'T', 'C':
		url, err = r.traceOrCopy(tag, p)
	case 'V':
		v := r.validation(p)
		if r.err != nil {
			return r.err
		}
		url = v.ValidatorURL
		p.l.Validations[sharedKey(v)] = v
	case 'R':
		url, err = r.rejection(p)
	case 'D':
		url, err = r.dispute(p)
	default:
		return fmt.Errorf("a line tagged %q", tag)
	}
	if err != nil {
		return err
	}
	return r.ofPeer(p, url)
}

// traceOrCopy reads a trace or copy line into p, and returns its URL.
func (r *summaryReader) traceOrCopy(tag byte, p *summaryPeer) (string, error) {
	key, t := r.trace(p)
	switch {
	case r.err != nil:
		return "", r.err
	case tag == 'T':
		p.l.Traces[key] = t
	case key != t.Hash:
		return "", fmt.Errorf("copy %s under the key %s", t.Hash, key)
	case p.l.Copies == nil:
		return "", errors.New("a copy where its peer line says none")
	default:
		k := CopyKey(t.AgentURL, t.Hash)
		t.Hash = manifest.Hash(suffixOf(k, string(t.Hash)))
		p.l.Copies[k] = t
	}
	return t.AgentURL, nil
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

// rejection reads a rejection line into p, and returns its URL.
func (r *summaryReader) rejection(p *summaryPeer) (string, error) {
	if len(r.f) != 2 {
		return "", fmt.Errorf("a rejection line of %d fields, not 2", len(r.f))
	}
	var rej *Rejection
	k, err := r.str(r.f[0], false)
	if err == nil {
		err = json.Unmarshal(r.f[1], &rej)
	}
	switch {
	case err != nil || rej == nil:
		return "", fmt.Errorf("rejection: %v", err)
	case p.l.Rejected[k] != nil:
		return "", fmt.Errorf("two rejections of %s", k)
	}
	if p.l.Rejected == nil {
		p.l.Rejected = map[string]*Rejection{}
	}
	p.l.Rejected[k] = rej
	return rej.AgentURL, nil
}

// dispute reads a dispute line into p, and returns its URL.
func (r *summaryReader) dispute(p *summaryPeer) (string, error) {
	if len(r.f) != 1 {
		return "", fmt.Errorf("a dispute line of %d fields, not 1", len(r.f))
	}
	var d *Dispute
	if err := json.Unmarshal(r.f[0], &d); err != nil || d == nil {
		return "", fmt.Errorf("dispute: %v", err)
	}
	k := d.Key()
	if p.l.Disputes[k] != nil {
		return "", fmt.Errorf("two disputes of %s", k)
	}
	if p.l.Disputes == nil {
		p.l.Disputes = map[string]*Dispute{}
	}
	p.l.Disputes[k] = d
	return d.ReporterURL, nil
}
