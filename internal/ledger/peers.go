package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// PeerTrace names a trace as one peer lists it, what ListedBy is asked:
// the peer's URL and the trace's hash.
type PeerTrace struct {
	URL  string
	Hash manifest.Hash
}

// Listing is ListedBy's answer for one PeerTrace.
type Listing struct {
	Listed, Withdrawn bool
}

// ListedByAll answers ListedBy for each of asks as the whole ledger at
// path (Load, LoadCompact) would, reading only the records filed under
// the asks' peers, for a command that asks about a few queue items
// (`meshnode score`): their files' shards and, for a peer whose file
// does not hold the trace asked of it as its own, that peer's segments.
// It relies on what every Save keeps true: the records of a key are filed
// under one peer, a trace under its AgentURL and a copy under its
// lister's, and a record in a peer's file replaces its sealed one
// (docs/decisions.md, "Names": what `meshnode score` reads). A file or segment
// it reads that cannot be read is a *statefile.CorruptError, as for
// Load; the others are not read, so not checked.
func ListedByAll(path string, asks []PeerTrace) (map[PeerTrace]Listing, error) {
	out := make(map[PeerTrace]Listing, len(asks))
	if len(asks) == 0 {
		return out, nil
	}
	files, err := readPeerFiles(path, peerNames(asks))
	if err != nil {
		return nil, err
	}
	l, err := loadPeers(path, files, nil)
	if err != nil {
		return nil, err
	}
	var rest []PeerTrace
	for _, a := range asks {
		// A trace the peer's file holds as its own is the ledger's
		// record of its hash: none sealed replaces it.
		if t := l.Traces[a.Hash]; t != nil && t.AgentURL == a.URL {
			out[a] = Listing{Listed: true, Withdrawn: t.TakenDown == Withdrawn}
			continue
		}
		rest = append(rest, a)
	}
	if len(rest) == 0 {
		return out, nil
	}
	if l, err = loadPeers(path, files, peerNames(rest)); err != nil {
		return nil, err
	}
	for _, a := range rest {
		listed, withdrawn := l.ListedBy(a.URL, a.Hash)
		out[a] = Listing{Listed: listed, Withdrawn: withdrawn}
	}
	return out, nil
}

// peerNames is the file names of the peers of asks, sorted, each once.
func peerNames(asks []PeerTrace) []string {
	names := map[string]bool{}
	for _, a := range asks {
		names[statefile.PeerFileName(a.URL)] = true
	}
	return slices.Sorted(maps.Keys(names))
}

// peerFiles is what the ledger's files hold of some peers: the single
// file of older nodes, nil when there is none, and the peers' files by
// name.
type peerFiles struct {
	legacy []byte
	names  []string
	data   map[string][]byte
}

// readPeerFiles reads the files of the peer files names of the ledger at
// path, and the single file older nodes kept, which holds every peer's.
func readPeerFiles(path string, names []string) (*peerFiles, error) {
	f := &peerFiles{names: names, data: make(map[string][]byte, len(names))}
	var err error
	f.legacy, err = os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, &statefile.CorruptError{Path: path, Err: err}
	}
	for _, name := range names {
		data, err := statefile.ReadOne(path, name)
		if err != nil {
			return nil, err
		}
		if data != nil {
			f.data[name] = data
		}
	}
	return f, nil
}

// loadPeers is the records of files, the ledger at path's of some peers,
// and the sealed records of the peer files sealed, merged in the order
// Load merges them: segments, then the single file of older nodes, then
// the peers' files. What it returns is no ledger to Save (Save would
// write the other peers' files empty), so it stays unexported.
func loadPeers(path string, files *peerFiles, sealed []string) (*Ledger, error) {
	l := New()
	if len(sealed) > 0 {
		if err := l.loadPeersSealed(path, sealed); err != nil {
			return nil, err
		}
	}
	if files.legacy != nil {
		if err := l.merge(files.legacy); err != nil {
			return nil, statefile.Corrupt(path, files.legacy, err)
		}
	}
	for _, name := range files.names {
		data, ok := files.data[name]
		if !ok {
			continue
		}
		if err := l.merge(data); err != nil {
			return nil, statefile.Corrupt(statefile.FilePath(path, name), data, err)
		}
	}
	return l, nil
}

// loadPeersSealed merges into l the sealed records of the peer files
// names: those of their own segments' directories and of their shards'
// (shardOf), read a group (summaryGroup) at a time, the redundant shard
// segments left out as Load leaves them out, then merged by quarter, then
// path (segmentOrder), as Load merges them.
func (l *Ledger) loadPeersSealed(path string, names []string) error {
	want := map[string]bool{}
	dirs := map[string]bool{}
	for _, name := range names {
		want[name] = true
		dirs[peerDir(name)] = true
		dirs["shard-"+shardOf(peerDir(name))] = true
	}
	groups, err := segmentGroupsIn(path, slices.Sorted(maps.Keys(dirs)))
	if err != nil {
		return err
	}
	held := map[string]map[string]*Ledger{} // rel → the records of names it holds
	sizes := map[string]int64{}
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		if err := l.readPeersOfGroup(path, groups[g], want, held, sizes); err != nil {
			return err
		}
	}
	for _, rel := range segmentOrder(slices.Sorted(maps.Keys(held))) {
		l.addSealed(rel, sizes[rel], held[rel], false)
	}
	return nil
}

// segmentGroupsIn lists the segments of the ledger at path in the
// segment directories dirs, by summary group.
func segmentGroupsIn(path string, dirs []string) (map[string][]statefile.SegmentFile, error) {
	groups := map[string][]statefile.SegmentFile{}
	for _, dir := range dirs {
		files, err := statefile.ListSegmentsOf(path, dir)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if err := checkSegmentName(f.Rel); err != nil {
				return nil, statefile.Corrupt(filepath.Join(statefile.SegmentsDir(path), filepath.FromSlash(f.Rel)), nil, err)
			}
			g := summaryGroup(f.Rel)
			groups[g] = append(groups[g], f)
		}
	}
	return groups, nil
}

// readPeersOfGroup reads the segments files of one group of the ledger at
// path and puts in held, by rel, the records each holds of the peer files
// want, and its size in sizes, but for the redundant ones (redundantOf).
// The group's segments are held in memory together only while it is
// read, and only the wanted peers' entries are decoded.
func (l *Ledger) readPeersOfGroup(path string, files []statefile.SegmentFile, want map[string]bool, held map[string]map[string]*Ledger, sizes map[string]int64) error {
	rels, segs, err := readGroup(path, files)
	if err != nil {
		return err
	}
	slices.Sort(rels)
	gone, err := redundantOf(rels, func(rel string) (map[string]json.RawMessage, error) {
		e, err := shardEntries(rel, segs[rel])
		if err != nil {
			return nil, segmentCorrupt(path, rel, segs[rel], err)
		}
		return e, nil
	})
	if err != nil {
		return err
	}
	for _, rel := range rels {
		if gone[rel] {
			continue
		}
		peers, err := peersOf(rel, segs[rel], want)
		if err != nil {
			return segmentCorrupt(path, rel, segs[rel], err)
		}
		if len(peers) > 0 {
			held[rel], sizes[rel] = peers, int64(len(segs[rel]))
		}
	}
	return nil
}

// peersOf is the records of the peer files want that the segment rel,
// whose bytes data its name was checked against, holds, by peer file
// name: a peer's segment, its directory's peer's; a shard segment, the
// entries of those of them of its shard, found without decoding the
// others' (shardEntry) and decoded as decodeShard decodes them. An entry
// the search finds that does not decode has the segment read whole
// (peersOfWhole), which finds the right one or says why there is none.
func peersOf(rel string, data []byte, want map[string]bool) (map[string]*Ledger, error) {
	if !isShardSegment(rel) {
		name := path.Dir(rel) + ".json"
		if !want[name] {
			return nil, nil
		}
		return decodeSegment(rel, data)
	}
	shard := strings.TrimPrefix(path.Dir(rel), "shard-")
	out := map[string]*Ledger{}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		dir := peerDir(name)
		if !inShard(dir, shard) {
			continue
		}
		if !plainDir(dir) {
			return peersOfWhole(rel, data, want)
		}
		e, ok := shardEntry(data, dir)
		if !ok {
			continue
		}
		in, err := decodeShardPeer(dir, e)
		if err != nil {
			return peersOfWhole(rel, data, want)
		}
		out[name] = in
	}
	return out, nil
}

// peersOfWhole is peersOf of a shard segment, its entries all read.
func peersOfWhole(rel string, data []byte, want map[string]bool) (map[string]*Ledger, error) {
	entries, err := shardEntries(rel, data)
	if err != nil {
		return nil, err
	}
	out := map[string]*Ledger{}
	for dir, e := range entries {
		if !want[dir+".json"] {
			continue
		}
		in, err := decodeShardPeer(dir, e)
		if err != nil {
			return nil, fmt.Errorf("segment %s: %w", rel, err)
		}
		out[dir+".json"] = in
	}
	return out, nil
}

// plainDir reports whether dir is written in JSON as it is, as the
// directory of every peer's file name is ([a-z0-9.-]: PeerFileName).
func plainDir(dir string) bool {
	for _, c := range []byte(dir) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return dir != ""
}

// shardHead is how every shard segment begins (encodeShard).
const shardHead = `{"peers":{`

// shardEntry finds the entry of the peer whose directory is dir, a name
// JSON writes as it is (a peer's file name's: [a-z0-9.-] and 8 hex
// digits), in data, a shard segment as encodeShard writes it: its key
// right after shardHead or after the "}," that ends the entry before it,
// then an object, then the "," or "}" after it. Only that entry is
// decoded, not the segment's other peers', so finding a few peers in a
// quarter's segment costs a search of its bytes, not a decoding of them.
// Of bytes encodeShard wrote, it finds the entry shardEntries gives, or
// reports none, but where a record of another peer is keyed by dir, which
// no record a node writes is (their keys are hashes, URLs, or URLs and
// hashes): what it finds there is no peer's records, which the caller's
// check refuses.
func shardEntry(data []byte, dir string) (json.RawMessage, bool) {
	key := []byte(`"` + dir + `":{`)
	for off := 0; off < len(data); {
		i := bytes.Index(data[off:], key)
		if i < 0 {
			return nil, false
		}
		i += off
		off = i + 1
		if !(i == len(shardHead) && bytes.HasPrefix(data, []byte(shardHead))) && !(i >= 2 && data[i-2] == '}' && data[i-1] == ',') {
			continue
		}
		start := i + len(key) - 1
		dec := json.NewDecoder(bytes.NewReader(data[start:]))
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			continue
		}
		if end := start + int(dec.InputOffset()); end < len(data) && (data[end] == ',' || data[end] == '}') {
			return raw, true
		}
	}
	return nil, false
}
