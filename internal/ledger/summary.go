package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"

	"github.com/meshnode/meshnode/internal/statefile"
)

// A summary (mesh-state/ledger-segments/<quarter>-<shard>.summary)
// holds what a heartbeat reads of the records of a group of segments:
// those of one quarter whose peer's directory falls in one of 16 shards
// (by the first byte of the sha256 of its name modulo 16), so that their
// count grows by 64 a year, not by one per peer and quarter as older
// nodes' segments did; a shard segment is in the group of its own shard.
// It holds every field of every record but a trace's title and
// citations, which only the site and `meshnode explain` read, with what
// repeats in every record of a peer (its name and URL, a file's URL
// under the peer's) written once (docs/decisions.md, "The ledger's
// window"). Its first line names the segments it summarizes (name and
// size; a segment's name holds the sha256 of its bytes) and the sha256
// of the rest, so a damaged summary, or one of another set of segments,
// is found and derived again from them. The rest is a line per segment,
// peer and record, fields by position (sumwrite.go, sumread.go), read
// without reflection: a heartbeat with news reads every sealed record
// from it.

// summaryVersion is the summary format's version; a summary of another
// is derived again from its segments. Version 1 held the records as
// JSON objects; 2 holds them as lines of tab-separated fields.
const summaryVersion = 2

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
// records by peer file name (those its summary held, or all of them).
type sealedSegment struct {
	rel   string
	size  int64
	peers map[string]segPart
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

// summarized is t as a summary holds it.
func summarized(t *Trace) *Trace {
	c := *t
	c.Title, c.Cites = "", nil
	return &c
}

// encodeSummary is the summary of segs, sorted by rel.
func encodeSummary(segs []sealedSegment) ([]byte, error) {
	var w summaryWriter
	h := summaryHeader{Version: summaryVersion, Segments: make([]summaryMember, len(segs))}
	for i, s := range segs {
		if err := w.segment(s); err != nil {
			return nil, fmt.Errorf("encode summary of %s: %w", s.rel, err)
		}
		h.Segments[i] = summaryMember{Rel: s.rel, Size: s.size}
	}
	body := w.b.Bytes()
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
// rel, as on disk), into the records it holds of each, by peer file
// name, their repeated strings those of strs.
func decodeSummary(files []statefile.SegmentFile, data []byte, strs interner) ([]map[string]*Ledger, error) {
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
	out, err := newSummaryReader(body, strs).segments(files)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errStaleSummary, err)
	}
	return out, nil
}

// agrees reports whether part, what a summary held of a peer's records
// in a segment, is what it holds of seg, that peer's records in it.
func agrees(part, seg *Ledger) bool {
	var a, b summaryWriter
	return a.peer("", part) == nil && b.peer("", seg) == nil && bytes.Equal(a.b.Bytes(), b.b.Bytes())
}
