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
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/meshnode/meshnode/internal/statefile"
)

// A shard segment (mesh-state/ledger-segments/shard-<shard>/<quarter>-
// <part>-<8 hex>.json) holds the sealed records of one quarter of every
// peer of one shard (shardOf) that Compact sealed at once, keyed by the
// peer's directory name: one file where a per-peer segment made one per
// peer, so that git's clean check and a checkout pay for 16 files a
// quarter, not one per peer (docs/decisions.md, "The ledger's window").
// Its bytes are `{"peers":{...}}` and a newline, compact JSON, peers
// sorted and each peer's records as a segment holds them; its name
// carries the first four bytes of their sha256, as a segment's does. A
// shard's quarter too large for one file is split, by whole peers in
// order, into parts numbered from 0 (shardPartBytes).

// shardPartBytes is the size past which a shard's quarter goes on in a
// new part: the node writes no file over 10 MB (issue 24), and a part
// closes before the peer that would take it past 4 MiB, so only one
// peer's quarter larger than that alone, a part of its own, can exceed it.
const shardPartBytes = 4 << 20

// shardDir is a shard segment's directory; a peer's directory always ends
// in "-" and 8 hex digits (statefile.PeerFileName), so none is named so.
var shardDir = regexp.MustCompile(`^shard-([0-9a-f])$`)

// shardSegmentName is a shard segment's name in its shard's directory:
// its quarter, its part and 8 hex digits of the sha256 of its bytes.
var shardSegmentName = regexp.MustCompile(`^([0-9]{4}-Q[1-4])-(0|[1-9][0-9]{0,5})-([0-9a-f]{8})\.json$`)

// shardOf is the shard of the peer whose segments' directory is dir: the
// first byte of the sha256 of its name modulo 16, as one hex digit.
func shardOf(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return strconv.FormatInt(int64(sum[0])%summaryShards, 16)
}

// peerDir is the directory name of the peer whose file is name.
func peerDir(name string) string { return strings.TrimSuffix(name, ".json") }

// isShardSegment reports whether rel is in a shard's directory.
func isShardSegment(rel string) bool {
	dir, _ := path.Split(rel)
	return shardDir.MatchString(strings.TrimSuffix(dir, "/"))
}

// shardRel is the rel of the part-th shard segment of shard and quarter q
// whose bytes are data.
func shardRel(shard, q string, part int, data []byte) string {
	sum := sha256.Sum256(data)
	return "shard-" + shard + "/" + q + "-" + strconv.Itoa(part) + "-" + hex.EncodeToString(sum[:4]) + ".json"
}

// shardFile is a shard segment's bytes as JSON reads them.
type shardFile struct {
	Peers map[string]json.RawMessage `json:"peers"`
}

// encodeShard is the bytes of a shard segment holding entries, each a
// peer's records as compact JSON, by the peer's directory name.
func encodeShard(entries map[string]json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString(`{"peers":{`)
	for i, dir := range slices.Sorted(maps.Keys(entries)) {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(dir) // a string always encodes
		b.Write(name)
		b.WriteByte(':')
		b.Write(entries[dir])
	}
	b.WriteString("}}\n")
	return b.Bytes()
}

// shardEntries reads the entries of the shard segment rel from data,
// checking that each is a peer of its shard with records.
func shardEntries(rel string, data []byte) (map[string]json.RawMessage, error) {
	var f shardFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	if len(f.Peers) == 0 {
		return nil, errors.New("a shard segment holds no peers")
	}
	shard := shardDir.FindStringSubmatch(strings.TrimSuffix(path.Dir(rel), "/"))
	for dir := range f.Peers {
		if shard == nil || !inShard(dir, shard[1]) {
			return nil, fmt.Errorf("peer %q does not belong in %s", dir, path.Dir(rel))
		}
	}
	return f.Peers, nil
}

// inShard reports whether dir names the directory of a peer of shard,
// one a shard segment of shard may hold: its reader (shardEntries) and a
// summary's (summaryReader.peer) ask alike.
func inShard(dir, shard string) bool { return validPeerDir(dir) && shardOf(dir) == shard }

// validPeerDir reports whether dir can name a peer's directory.
func validPeerDir(dir string) bool {
	return dir != "" && !strings.ContainsAny(dir, `/\`) && !strings.HasPrefix(dir, ".") && !shardDir.MatchString(dir)
}

// decodeShard reads the records of the shard segment rel from data, by
// the peer's file name, checking that each record is filed under the
// peer that holds it, as a summary's reader checks each record of a
// shard segment's peer (summaryReader.ofPeer).
func decodeShard(rel string, data []byte) (map[string]*Ledger, error) {
	entries, err := shardEntries(rel, data)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*Ledger, len(entries))
	for _, dir := range slices.Sorted(maps.Keys(entries)) {
		in, err := decodeShardPeer(dir, entries[dir])
		if err != nil {
			return nil, err
		}
		out[dir+".json"] = in
	}
	return out, nil
}

// decodeShardPeer reads the records of the peer whose directory is dir
// from its entry in a shard segment, checking that each is filed under
// that peer and that there is one at least.
func decodeShardPeer(dir string, entry json.RawMessage) (*Ledger, error) {
	in, err := decode(entry)
	if err != nil {
		return nil, fmt.Errorf("peer %s: %w", dir, err)
	}
	name := dir + ".json"
	bad := ""
	in.eachURL(func(url string) {
		if bad == "" && statefile.PeerFileName(url) != name {
			bad = url
		}
	})
	if bad != "" {
		return nil, fmt.Errorf("peer %s holds a record of %s", dir, bad)
	}
	if in.empty() {
		return nil, fmt.Errorf("peer %s holds no records", dir)
	}
	return in, nil
}

// eachURL calls f with the URL each record of l is filed under: its
// peer's (Files).
func (l *Ledger) eachURL(f func(url string)) {
	for _, t := range l.Traces {
		f(t.AgentURL)
	}
	for _, v := range l.Validations {
		f(v.ValidatorURL)
	}
	for _, r := range l.Rejected {
		f(r.AgentURL)
	}
	for _, d := range l.Disputes {
		f(d.ReporterURL)
	}
	for _, t := range l.Copies {
		f(t.AgentURL)
	}
}

// empty reports whether l holds no record.
func (l *Ledger) empty() bool {
	return len(l.Traces)+len(l.Validations)+len(l.Rejected)+len(l.Disputes)+len(l.Copies) == 0
}

// shardParts splits entries, a shard's peers' records by directory name,
// into the bytes of the parts of its segment: peers in order, a part
// closed before the peer that would take it past shardPartBytes.
func shardParts(entries map[string]json.RawMessage) [][]byte {
	var out [][]byte
	const wrapper = len(`{"peers":{}}` + "\n")
	part := map[string]json.RawMessage{}
	size := wrapper
	for _, dir := range slices.Sorted(maps.Keys(entries)) {
		name, _ := json.Marshal(dir)           // a string always encodes
		n := len(name) + 1 + len(entries[dir]) // and a colon
		if len(part) > 0 && size+1+n > shardPartBytes {
			out = append(out, encodeShard(part))
			part, size = map[string]json.RawMessage{}, wrapper
		}
		if len(part) > 0 {
			n++ // the comma before it
		}
		part[dir] = entries[dir]
		size += n
	}
	if len(part) > 0 {
		out = append(out, encodeShard(part))
	}
	return out
}
