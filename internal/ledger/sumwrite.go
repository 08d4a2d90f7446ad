package ledger

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A summary's body (version 2) is a line per segment, peer and record,
// each a tag and fields separated by tabs, in this order:
//
//	S                                      a segment, in the header's order
//	P name agent url traces copies validations
//	                                       a peer's records in it, with how
//	                                       many of each kind follow
//	T key agent agent_url seq hash file url type category status
//	  submitted first_seen fingerprint verified taken_down
//	  [verdict_agent verdict_seq verdict_result]...
//	C (as T, its key left empty)
//	V validator validator_url trace_url trace_hash result total
//	  score×6 has_scores validated_at source source_url source_hash
//	R key rejection-as-JSON
//	D dispute-as-JSON
//
// A string field escapes a backslash, tab and newline as \\, \t and \n.
// A field that has a default (a trace's key: its hash; agent, agent_url,
// validator and validator_url: the peer line's; a trace's url: its
// agent_url followed by its file) is empty when it equals it, and \- when
// it is empty but the default is not. A validation's source is its
// source_url after its validator_url when source_url starts with it and
// is longer, source_url then empty; else source is empty and source_url
// the whole. Times are RFC 3339 as JSON writes them, a zero time empty;
// a bool is 1 or empty; a fingerprint its 16 hex digits. Records
// of each kind are in key order, peers in file-name order, so a summary
// of the same records is the same bytes.

// noDefault is the field of a string that is empty where its default is
// not.
const noDefault = `\-`

// summaryWriter writes a summary's body.
type summaryWriter struct{ b bytes.Buffer }

// segment writes the records of seg, peer by peer.
func (w *summaryWriter) segment(seg sealedSegment) error {
	w.b.WriteString("S\n")
	for _, name := range slices.Sorted(maps.Keys(seg.peers)) {
		if err := w.peer(name, seg.peers[name].ledger()); err != nil {
			return err
		}
	}
	return nil
}

// peer writes the records of p, those of peer file name.
func (w *summaryWriter) peer(name string, p *Ledger) error {
	agent, url := peerOf(p)
	w.b.WriteByte('P')
	w.str(name)
	w.str(agent)
	w.str(url)
	w.int(int64(len(p.Traces)))
	w.int(int64(len(p.Copies)))
	w.int(int64(len(p.Validations)))
	w.b.WriteByte('\n')
	for _, k := range slices.Sorted(maps.Keys(p.Traces)) {
		if err := w.trace('T', string(k), p.Traces[k], agent, url); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(p.Copies)) {
		if err := w.trace('C', string(p.Copies[k].Hash), p.Copies[k], agent, url); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(p.Validations)) {
		if err := w.validation(p.Validations[k], agent, url); err != nil {
			return err
		}
	}
	return w.others(p)
}

// others writes the rejections and disputes of p, few, as JSON.
func (w *summaryWriter) others(p *Ledger) error {
	for _, k := range slices.Sorted(maps.Keys(p.Rejected)) {
		w.b.WriteByte('R')
		w.str(k)
		if err := w.json(p.Rejected[k]); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(p.Disputes)) {
		w.b.WriteByte('D')
		if err := w.json(p.Disputes[k]); err != nil {
			return err
		}
	}
	return nil
}

// trace writes t, under key, of the peer named agent at url.
func (w *summaryWriter) trace(tag byte, key string, t *Trace, agent, url string) error {
	w.b.WriteByte(tag)
	w.def(key, string(t.Hash))
	w.def(t.Agent, agent)
	w.def(t.AgentURL, url)
	w.int(int64(t.Seq))
	w.str(string(t.Hash))
	w.str(t.File)
	w.def(t.URL, t.AgentURL+t.File)
	w.str(t.Type)
	w.str(t.Category)
	w.str(string(t.Status))
	if err := w.time(t.Submitted); err != nil {
		return err
	}
	if err := w.time(t.FirstSeen); err != nil {
		return err
	}
	w.b.WriteByte('\t')
	w.b.WriteString(t.Fingerprint.String())
	w.bool(t.Verified)
	w.str(t.TakenDown)
	for _, v := range t.Verdicts {
		w.str(v.Agent)
		w.int(int64(v.Seq))
		w.str(v.Result)
	}
	w.b.WriteByte('\n')
	return nil
}

// validation writes v, of the peer named agent at url.
func (w *summaryWriter) validation(v *Validation, agent, url string) error {
	w.b.WriteByte('V')
	w.def(v.Validator, agent)
	w.def(v.ValidatorURL, url)
	w.str(v.TraceURL)
	w.str(string(v.TraceHash))
	w.str(v.Result)
	w.int(int64(v.Total))
	for _, s := range v.Scores {
		w.int(int64(s))
	}
	w.bool(v.HasScores)
	if err := w.time(v.ValidatedAt); err != nil {
		return err
	}
	if rest, ok := strings.CutPrefix(v.SourceURL, v.ValidatorURL); ok && rest != "" {
		w.str(rest)
		w.str("")
	} else {
		w.str("")
		w.str(v.SourceURL)
	}
	w.str(string(v.SourceHash))
	w.b.WriteByte('\n')
	return nil
}

// str writes the field s, escaped.
func (w *summaryWriter) str(s string) {
	w.b.WriteByte('\t')
	if !strings.ContainsAny(s, "\\\t\n") {
		w.b.WriteString(s)
		return
	}
	for i := range len(s) {
		switch s[i] {
		case '\\':
			w.b.WriteString(`\\`)
		case '\t':
			w.b.WriteString(`\t`)
		case '\n':
			w.b.WriteString(`\n`)
		default:
			w.b.WriteByte(s[i])
		}
	}
}

// def writes the field s, whose default is def.
func (w *summaryWriter) def(s, def string) {
	switch {
	case s == def:
		w.str("")
	case s == "":
		w.b.WriteString("\t" + noDefault)
	default:
		w.str(s)
	}
}

func (w *summaryWriter) int(n int64) {
	w.b.WriteByte('\t')
	w.b.Write(strconv.AppendInt(w.b.AvailableBuffer(), n, 10))
}

func (w *summaryWriter) bool(b bool) {
	w.b.WriteByte('\t')
	if b {
		w.b.WriteByte('1')
	}
}

func (w *summaryWriter) time(t time.Time) error {
	w.b.WriteByte('\t')
	if t.IsZero() {
		return nil
	}
	text, err := t.MarshalText()
	if err != nil {
		return err
	}
	w.b.Write(text)
	return nil
}

// json writes v as a JSON field and ends the line: encoding/json escapes
// every control character, so it holds no tab or newline.
func (w *summaryWriter) json(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.b.WriteByte('\t')
	w.b.Write(data)
	w.b.WriteByte('\n')
	return nil
}

// peerOf is the name and URL of the first record of seg, traces first,
// each kind by key: in a segment, every record's peer.
func peerOf(seg *Ledger) (string, string) {
	for _, k := range slices.Sorted(maps.Keys(seg.Traces)) {
		return seg.Traces[k].Agent, seg.Traces[k].AgentURL
	}
	for _, k := range slices.Sorted(maps.Keys(seg.Validations)) {
		return seg.Validations[k].Validator, seg.Validations[k].ValidatorURL
	}
	for _, k := range slices.Sorted(maps.Keys(seg.Copies)) {
		return seg.Copies[k].Agent, seg.Copies[k].AgentURL
	}
	return "", ""
}
