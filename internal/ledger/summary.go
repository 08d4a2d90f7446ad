package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

// A summary (mesh-state/ledger-segments/<quarter>-<shard>.summary)
// holds what a heartbeat reads of the records of a group of segments:
// those of one quarter whose peer's directory falls in one of 16 shards
// (by the first byte of the sha256 of its name modulo 16), so that their
// count grows by 64 a year, not by one per peer and quarter as older
// nodes' segments did; a shard segment is in the group of its own shard. It holds every field of every record but a trace's title
// and citations, which only the site and `meshnode explain` read, with
// what repeats in every record of a peer (its name and URL, a file's URL
// under the peer's) written once (docs/decisions.md, "The ledger's
// window"). Its first line names the segments it summarizes (name and
// size; a segment's name holds the sha256 of its bytes) and the sha256
// of the rest, so a damaged summary, or one of another set of segments,
// is found and derived again from them.

// summaryVersion is the summary format's version; a summary of another
// is derived again from its segments.
const summaryVersion = 1

// summaryShards is how many groups a quarter's segments fall in.
const summaryShards = 16

// summaryHeader is a summary's first line.
type summaryHeader struct {
	Version  int             `json:"version"`
	Segments []summaryMember `json:"segments"`    // by rel
	Body     string          `json:"body_sha256"` // of the bytes after the first line
}

// summaryMember is one segment a summary holds.
type summaryMember struct {
	Rel  string `json:"rel"`
	Size int64  `json:"size"`
}

// sealedSegment is a segment the ledger holds: its rel, size, and
// records (those its summary held, or all of them).
type sealedSegment struct {
	rel  string
	size int64
	recs *Ledger
}

// summaryGroup names the summary that holds the segment rel, whose name
// checkSegmentName accepted: its quarter and shard (its peer's, or the
// shard segment's own).
func summaryGroup(rel string) string {
	dir := path.Dir(rel)
	if m := shardDir.FindStringSubmatch(dir); m != nil {
		return segmentQuarter(rel) + "-" + m[1]
	}
	return segmentQuarter(rel) + "-" + shardOf(dir)
}

// summaryBody is what a summary holds of a segment's records: the
// peer's name and URL, which a record leaves out when it has them, and
// its records sorted by key.
type summaryBody struct {
	Agent       string                `json:"agent"`
	URL         string                `json:"url"`
	Traces      []sumTrace            `json:"traces,omitempty"`
	Copies      []sumTrace            `json:"copies,omitempty"`
	Validations []sumValidation       `json:"validations,omitempty"`
	Rejected    map[string]*Rejection `json:"rejected,omitempty"`
	Disputes    []*Dispute            `json:"disputes,omitempty"`
}

// sumTrace is a Trace without its title and citations; a nil Agent or
// AgentURL is the summary's, a nil URL the agent's URL and the file.
type sumTrace struct {
	Key         *manifest.Hash    `json:"k,omitempty"` // its key in Traces, when not its hash
	Agent       *string           `json:"a,omitempty"`
	AgentURL    *string           `json:"u,omitempty"`
	Seq         manifest.Seq      `json:"s"`
	Hash        manifest.Hash     `json:"h"`
	File        string            `json:"f,omitempty"`
	URL         *string           `json:"l,omitempty"`
	Type        string            `json:"y,omitempty"`
	Category    string            `json:"c,omitempty"`
	Status      manifest.Status   `json:"st,omitempty"`
	Submitted   time.Time         `json:"t,omitzero"`
	FirstSeen   time.Time         `json:"fs,omitzero"`
	Fingerprint trace.Fingerprint `json:"p,omitempty"`
	Verified    bool              `json:"v,omitempty"`
	Verdicts    []Verdict         `json:"vd,omitempty"`
	TakenDown   string            `json:"td,omitempty"`
}

// sumValidation is a whole Validation; a nil Validator or ValidatorURL is
// the summary's, and its SourceURL is Source under the validator's URL
// unless SourceURL says otherwise.
type sumValidation struct {
	Validator    *string                       `json:"a,omitempty"`
	ValidatorURL *string                       `json:"u,omitempty"`
	TraceURL     string                        `json:"l,omitempty"`
	TraceHash    manifest.Hash                 `json:"h"`
	Result       string                        `json:"r,omitempty"`
	Total        int                           `json:"n,omitempty"`
	Scores       [validation.NumDimensions]int `json:"s,omitzero"`
	HasScores    bool                          `json:"hs,omitempty"`
	ValidatedAt  time.Time                     `json:"t,omitzero"`
	Source       string                        `json:"f,omitempty"`
	SourceURL    *string                       `json:"fu,omitempty"`
	SourceHash   manifest.Hash                 `json:"sh,omitempty"`
}

// summarized is t as a summary holds it.
func summarized(t *Trace) *Trace {
	c := *t
	c.Title, c.Cites = "", nil
	return &c
}

// encodeSummary is the summary of segs, sorted by rel.
func encodeSummary(segs []sealedSegment) ([]byte, error) {
	bodies := make([]any, len(segs))
	h := summaryHeader{Version: summaryVersion, Segments: make([]summaryMember, len(segs))}
	for i, s := range segs {
		bodies[i] = segmentSummary(s)
		h.Segments[i] = summaryMember{Rel: s.rel, Size: s.size}
	}
	body, err := json.Marshal(bodies)
	if err != nil {
		return nil, fmt.Errorf("encode summary: %w", err)
	}
	body = append(body, '\n')
	sum := sha256.Sum256(body)
	h.Body = hex.EncodeToString(sum[:])
	head, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("encode summary: %w", err)
	}
	return append(append(head, '\n'), body...), nil
}

// errStaleSummary is a summary that is not its segments': damaged, of
// another version, or of other segments.
var errStaleSummary = errors.New("summary does not match its segments")

// decodeSummary reads data, the summary of the segments files (sorted by
// rel, as on disk), into the records it holds of each.
func decodeSummary(files []statefile.SegmentFile, data []byte) ([]*Ledger, error) {
	line, body, ok := bytes.Cut(data, []byte{'\n'})
	var h summaryHeader
	if !ok || json.Unmarshal(line, &h) != nil {
		return nil, fmt.Errorf("%w: no header", errStaleSummary)
	}
	sum := sha256.Sum256(body)
	if h.Version != summaryVersion || h.Body != hex.EncodeToString(sum[:]) || len(h.Segments) != len(files) {
		return nil, errStaleSummary
	}
	for i, m := range h.Segments {
		if m.Rel != files[i].Rel || m.Size != files[i].Size {
			return nil, fmt.Errorf("%w: it holds %s, not %s", errStaleSummary, m.Rel, files[i].Rel)
		}
	}
	var bodies []json.RawMessage
	if err := json.Unmarshal(body, &bodies); err != nil || len(bodies) != len(files) {
		return nil, fmt.Errorf("%w: %d records for %d segments (%v)", errStaleSummary, len(bodies), len(files), err)
	}
	out := make([]*Ledger, len(bodies))
	for i, f := range files {
		recs, err := segmentRecords(f.Rel, bodies[i])
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errStaleSummary, f.Rel, err)
		}
		out[i] = recs
	}
	return out, nil
}

// segmentSummary is what a summary holds of seg: a peer's segment's
// records, or a shard segment's records of each peer, by peer file name,
// so that each peer's name and URL are written once.
func segmentSummary(seg sealedSegment) any {
	if !isShardSegment(seg.rel) {
		return summaryOf(seg.recs)
	}
	peers := byPeer(seg.recs)
	out := make([]summaryBody, 0, len(peers))
	for _, name := range slices.Sorted(maps.Keys(peers)) {
		out = append(out, summaryOf(peers[name]))
	}
	return out
}

// segmentRecords reads the records of the segment rel from raw, what
// its summary holds of it (segmentSummary).
func segmentRecords(rel string, raw json.RawMessage) (*Ledger, error) {
	if !isShardSegment(rel) {
		var b summaryBody
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, err
		}
		return b.ledger(), nil
	}
	var bs []summaryBody
	if err := json.Unmarshal(raw, &bs); err != nil {
		return nil, err
	}
	out := New()
	for i := range bs {
		out.add(bs[i].ledger())
	}
	return out, nil
}

// summaryOf is what a summary holds of seg.
func summaryOf(seg *Ledger) summaryBody {
	var b summaryBody
	b.Agent, b.URL = peerOf(seg)
	for _, k := range slices.Sorted(maps.Keys(seg.Traces)) {
		st := b.trace(seg.Traces[k])
		if k != seg.Traces[k].Hash {
			st.Key = &k
		}
		b.Traces = append(b.Traces, st)
	}
	for _, k := range slices.Sorted(maps.Keys(seg.Copies)) {
		b.Copies = append(b.Copies, b.trace(seg.Copies[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(seg.Validations)) {
		b.Validations = append(b.Validations, b.validation(seg.Validations[k]))
	}
	if len(seg.Rejected) > 0 {
		b.Rejected = seg.Rejected
	}
	for _, k := range slices.Sorted(maps.Keys(seg.Disputes)) {
		b.Disputes = append(b.Disputes, seg.Disputes[k])
	}
	return b
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

// unless is nil when s is def, else s.
func unless(s, def string) *string {
	if s == def {
		return nil
	}
	return &s
}

// or is *p, or def when p is nil.
func or(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

func (b *summaryBody) trace(t *Trace) sumTrace {
	return sumTrace{Agent: unless(t.Agent, b.Agent), AgentURL: unless(t.AgentURL, b.URL), Seq: t.Seq, Hash: t.Hash,
		File: t.File, URL: unless(t.URL, t.AgentURL+t.File), Type: t.Type, Category: t.Category, Status: t.Status,
		Submitted: t.Submitted, FirstSeen: t.FirstSeen, Fingerprint: t.Fingerprint, Verified: t.Verified,
		Verdicts: t.Verdicts, TakenDown: t.TakenDown}
}

func (b *summaryBody) validation(v *Validation) sumValidation {
	sv := sumValidation{Validator: unless(v.Validator, b.Agent), ValidatorURL: unless(v.ValidatorURL, b.URL),
		TraceURL: v.TraceURL, TraceHash: v.TraceHash, Result: v.Result, Total: v.Total, Scores: v.Scores,
		HasScores: v.HasScores, ValidatedAt: v.ValidatedAt, SourceHash: v.SourceHash}
	if rest, ok := strings.CutPrefix(v.SourceURL, v.ValidatorURL); ok && rest != "" {
		sv.Source = rest
	} else if v.SourceURL != "" {
		sv.SourceURL = &v.SourceURL
	}
	return sv
}

// ledger is the records b holds, each under its key.
func (b *summaryBody) ledger() *Ledger {
	l := New()
	for _, st := range b.Traces {
		t := b.traceOf(st)
		k := t.Hash
		if st.Key != nil {
			k = *st.Key
		}
		l.Traces[k] = t
	}
	for _, st := range b.Copies {
		if l.Copies == nil {
			l.Copies = map[string]*Trace{}
		}
		t := b.traceOf(st)
		l.Copies[CopyKey(t.AgentURL, t.Hash)] = t
	}
	for _, sv := range b.Validations {
		v := b.validationOf(sv)
		l.Validations[v.Key()] = v
	}
	l.Rejected = withoutNil(b.Rejected)
	for _, d := range b.Disputes {
		if d != nil {
			l.Disputes[d.Key()] = d
		}
	}
	return l
}

func (b *summaryBody) traceOf(st sumTrace) *Trace {
	t := &Trace{Agent: or(st.Agent, b.Agent), AgentURL: or(st.AgentURL, b.URL), Seq: st.Seq, Hash: st.Hash, File: st.File,
		Type: st.Type, Category: st.Category, Status: st.Status, Submitted: st.Submitted, FirstSeen: st.FirstSeen,
		Fingerprint: st.Fingerprint, Verified: st.Verified, Verdicts: st.Verdicts, TakenDown: st.TakenDown}
	t.URL = or(st.URL, t.AgentURL+t.File)
	return t
}

func (b *summaryBody) validationOf(sv sumValidation) *Validation {
	v := &Validation{Validator: or(sv.Validator, b.Agent), ValidatorURL: or(sv.ValidatorURL, b.URL), TraceURL: sv.TraceURL,
		TraceHash: sv.TraceHash, Result: sv.Result, Total: sv.Total, Scores: sv.Scores, HasScores: sv.HasScores,
		ValidatedAt: sv.ValidatedAt, SourceHash: sv.SourceHash}
	switch {
	case sv.SourceURL != nil:
		v.SourceURL = *sv.SourceURL
	case sv.Source != "":
		v.SourceURL = v.ValidatorURL + sv.Source
	}
	return v
}

// agrees reports whether part, what a summary held, is what it holds of
// seg, the records of its segment.
func agrees(part, seg *Ledger) bool {
	return reflect.DeepEqual(summaryOf(part), summaryOf(seg))
}
