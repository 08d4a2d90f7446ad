package ledger

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"

	"github.com/meshnode/meshnode/internal/statefile"
)

// Ledger is what mesh-state/ledger/ holds, all peers together.
type Ledger struct {
	// Traces are peers' files by hash ("sha256:<hex>").
	Traces map[manifest.Hash]*Trace `json:"traces"`
	// Validations are keyed by Validation.Key: the publisher's URL and the
	// validation file's hash, one record per file.
	Validations map[string]*Validation `json:"validations"`
	// Rejected are files whose bytes did not match their MANIFEST hash,
	// keyed by file URL.
	Rejected map[string]*Rejection `json:"rejected"`
	// Disputes are peers' MANIFEST-DISPUTE files, keyed by Dispute.Key;
	// left out of a file that holds none, so that files written before
	// disputes were recorded keep their bytes.
	Disputes map[string]*Dispute `json:"disputes,omitempty"`
	// Copies are traces whose bytes another agent's trace in Traces
	// already has, keyed by CopyKey: the agent that listed the copy and
	// the hash (docs/decisions.md, "Copies").
	Copies map[string]*Trace `json:"copies,omitempty"`

	// changed names the files (state.PeerFileName) whose records changed
	// since Load read them or Save wrote them, so Save re-encodes and
	// rewrites those only; nil means untracked, and Save writes every
	// file. Only the methods of Ledger change records once it is loaded.
	changed map[string]bool
	edits   int      // changes made through its methods (Edits)
	seal    *sealing // its segments, nil while it has none (Compact)
	// unsealed is what Load learned of the records no segment holds,
	// nil for a ledger not loaded (Compact then passes over every record).
	unsealed *unsealedIndex
	err      error    // why whole could not read sealed records whole; Save fails with it
	strs     interner // the strings the records share while Load reads them (intern.go)
}

// New returns an empty ledger.
func New() *Ledger {
	return &Ledger{Traces: map[manifest.Hash]*Trace{}, Validations: map[string]*Validation{}, Rejected: map[string]*Rejection{}, Disputes: map[string]*Dispute{}}
}

// Load reads the ledger named by path (mesh-state/ledger.json): its
// segments (mesh-state/ledger-segments/, Compact), then the directory
// mesh-state/ledger/, one file per peer, whose records replace a sealed
// record of the same key, and the single file older nodes kept at path if
// it is still there (statefile.Dir). Nothing on disk gives an empty
// ledger; a file that cannot be read or decoded gives a
// *statefile.CorruptError and is left untouched.
func Load(path string) (*Ledger, error) { return load(path, false) }

// load is Load, or LoadCompact when compact.
func load(path string, compact bool) (*Ledger, error) {
	l := New()
	l.strs = interner{}
	l.unsealed = newUnsealedIndex()
	if compact {
		if err := l.loadSummarized(path); err != nil {
			return nil, err
		}
	} else if err := l.loadSegments(path); err != nil {
		return nil, err
	}
	legacy, files, err := statefile.Read(path)
	if err != nil {
		return nil, err
	}
	if legacy != nil {
		if err := l.merge(legacy); err != nil {
			return nil, statefile.Corrupt(path, legacy, err)
		}
	}
	changed := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := l.merge(files[name]); err != nil {
			return nil, statefile.Corrupt(statefile.FilePath(path, name), files[name], err)
		}
		if l.seal != nil && l.seal.dropped {
			changed[name], l.seal.dropped = true, false
		}
	}
	if legacy == nil {
		l.changed = changed // the old single file is split by a full Save
	}
	l.shareTraceStrings()
	l.strs = nil
	l.unsealed.names = nil
	return l, nil
}

// loadSegments merges every segment of the ledger at path into l, by
// quarter, then path (segmentOrder).
func (l *Ledger) loadSegments(path string) error {
	segs, err := statefile.ReadSegments(path)
	if err != nil {
		return err
	}
	if len(segs) > 0 {
		l.sealer().path = path // for unseal to read a shard segment again
	}
	rels := slices.Sorted(maps.Keys(segs))
	for _, rel := range rels {
		if err := checkSegmentName(rel); err != nil {
			return segmentCorrupt(path, rel, segs[rel], err)
		}
	}
	return l.loadRead(path, rels, segs)
}

// loadRead merges into l the segments rels of the ledger at path, whose
// names checkSegmentName accepted, read into segs, by quarter, then path,
// but for the redundant ones, which the next Save removes
// (redundantShards).
func (l *Ledger) loadRead(path string, rels []string, segs map[string][]byte) error {
	gone, err := redundantOf(rels, func(rel string) (map[string]json.RawMessage, error) {
		e, err := checkedEntries(rel, segs[rel])
		if err != nil {
			return nil, segmentCorrupt(path, rel, segs[rel], err)
		}
		return e, nil
	})
	if err != nil {
		return err
	}
	for _, rel := range segmentOrder(rels) {
		if gone[rel] {
			l.dropRedundant(rel)
			continue
		}
		if _, err := l.loadSegment(rel, segs[rel]); err != nil {
			return segmentCorrupt(path, rel, segs[rel], err)
		}
	}
	return nil
}

// segmentCorrupt is the error of the segment rel of the ledger at path,
// whose bytes are data, that err makes corrupt.
func segmentCorrupt(path, rel string, data []byte, err error) error {
	return statefile.Corrupt(filepath.Join(statefile.SegmentsDir(path), filepath.FromSlash(rel)), data, err)
}

// segmentOrder is rels, segments' paths sorted, whose names
// checkSegmentName accepted, in the order they are read: by quarter, then
// path. A peer's later quarter is read after its earlier ones whatever
// its segments' form, so its later record of a key wins, as LoadCompact,
// which reads by quarter, has it: in path order an older node's segment
// "zeta.example-…/2026-Q1-…" would come after "shard-3/2026-Q3-…".
func segmentOrder(rels []string) []string {
	out := slices.Clone(rels)
	slices.SortStableFunc(out, func(a, b string) int { return strings.Compare(segmentQuarter(a), segmentQuarter(b)) })
	return out
}

// merge adds the records of one ledger file to l. A record equal to the sealed one of
// its key was left in the file by a Save that stopped after writing its
// segment: the segment's is kept, and the file is noted for rewriting.
func (l *Ledger) merge(data []byte) error {
	in, err := decodeShared(data, l.strs)
	if err != nil {
		return err
	}
	if l.seal != nil {
		l.dropSealed(in)
	}
	if l.unsealed != nil {
		l.unsealed.note(in)
	}
	l.add(in)
	return nil
}

// add puts the records of in into l, their strings shared while l loads.
func (l *Ledger) add(in *Ledger) {
	if l.strs != nil {
		l.strs.ledger(in)
	}
	l.put(in)
}

// put puts the records of in into l as they are.
func (l *Ledger) put(in *Ledger) {
	maps.Copy(l.Traces, in.Traces)
	maps.Copy(l.Validations, in.Validations)
	maps.Copy(l.Rejected, in.Rejected)
	maps.Copy(l.Disputes, in.Disputes)
	if len(in.Copies) > 0 {
		if l.Copies == nil {
			l.Copies = map[string]*Trace{}
		}
		maps.Copy(l.Copies, in.Copies)
	}
}

// decode reads one ledger file or segment. It keeps the maps the JSON
// decoder built where their keys stand, rather than copying every record
// into new ones: a heartbeat decodes every record of the ledger.
func decode(data []byte) (*Ledger, error) { return decodeShared(data, nil) }

// decodeShared is decode, the strings many records repeat taken from
// strs when it is not nil and the file is read by readPart.
func decodeShared(data []byte, strs interner) (*Ledger, error) {
	var in Ledger
	if err := decodePart(data, &in, strs); err != nil {
		return nil, err
	}
	l := &Ledger{
		Traces:   withoutNil(in.Traces),
		Rejected: withoutNil(in.Rejected),
		// Older nodes keyed a validation by the trace it names, so that
		// files naming none shared one key; each file is its own now.
		Validations: rekeyed(in.Validations, (*Validation).Key),
		Disputes:    rekeyed(in.Disputes, (*Dispute).Key),
	}
	for _, t := range in.Copies {
		if t != nil {
			l.AddCopy(t)
		}
	}
	return l, nil
}

// withoutNil is m without its null records, never nil.
func withoutNil[K comparable, V any](m map[K]*V) map[K]*V {
	if m == nil {
		return map[K]*V{}
	}
	maps.DeleteFunc(m, func(_ K, v *V) bool { return v == nil })
	return m
}

// rekeyed is m without its null records, each under key(record), never
// nil: m itself when every record is under its key already.
func rekeyed[V any](m map[string]*V, key func(*V) string) map[string]*V {
	m = withoutNil(m)
	for k, v := range m {
		if key(v) != k {
			out := make(map[string]*V, len(m))
			for _, v := range m {
				out[key(v)] = v
			}
			return out
		}
	}
	return m
}

// Files returns the ledger's files as Save writes them: one per peer
// (state.PeerFileName of the trace's agent URL, the validator's URL, the
// rejected file's agent URL or the dispute's reporter URL), each with keys sorted, two-space indent, a
// final newline and times in UTC.
func (l *Ledger) Files() (map[string][]byte, error) {
	return l.files(func(string) bool { return true })
}

// files encodes the files whose names keep accepts.
func (l *Ledger) files(keep func(name string) bool) (map[string][]byte, error) {
	parts := map[string]*Ledger{}
	names := map[string]string{} // URL → file name, memoized: a mesh names few URLs
	// part is the part of the record rec filed under url, nil when its
	// file is not kept or a segment holds rec; keep comes first, as it
	// passes over most records when few files changed.
	part := func(url string, rec any) *Ledger {
		name, ok := names[url]
		if !ok {
			name = statefile.PeerFileName(url)
			names[url] = name
		}
		if !keep(name) || l.seal.holds(rec) {
			return nil
		}
		if parts[name] == nil {
			parts[name] = New()
		}
		return parts[name]
	}
	for k, t := range l.Traces {
		if t == nil {
			continue
		}
		if p := part(t.AgentURL, t); p != nil {
			p.Traces[k] = t.normalized()
		}
	}
	for k, v := range l.Validations {
		if v == nil {
			continue
		}
		if p := part(v.ValidatorURL, v); p != nil {
			c := *v
			c.ValidatedAt = utc(v.ValidatedAt)
			p.Validations[k] = &c
		}
	}
	for k, r := range l.Rejected {
		if r == nil {
			continue
		}
		if p := part(r.AgentURL, r); p != nil {
			c := *r
			c.At = utc(r.At)
			p.Rejected[k] = &c
		}
	}
	for k, d := range l.Disputes {
		if d == nil {
			continue
		}
		if p := part(d.ReporterURL, d); p != nil {
			p.Disputes[k] = d.normalized()
		}
	}
	for _, t := range l.Copies {
		if t == nil {
			continue
		}
		if p := part(t.AgentURL, t); p != nil {
			p.AddCopy(t.normalized())
		}
	}
	files := make(map[string][]byte, len(parts))
	for name, p := range parts {
		data, err := encodePart(p)
		if err != nil {
			return nil, err
		}
		files[name] = data
	}
	return files, nil
}

// Save writes the ledger named by path: the segments Compact made, each
// once, then one file per peer, each atomically and only when its bytes
// change, then removes the single file of older nodes and the segments
// whose records went back to their peer's file; it reports whether
// anything on disk changed. A crash at any point leaves a ledger Load
// reads whole. A ledger Load read re-encodes only the files whose records
// changed since (or since its last Save), and removes those left with
// none.
func (l *Ledger) Save(path string) (bool, error) {
	if l.err != nil {
		return false, l.err
	}
	if l.seal != nil {
		l.seal.path = path // where unseal reads a shard segment it saved
	}
	created, err := l.saveSegments(path)
	if err != nil {
		return created, err
	}
	changed, err := l.saveFiles(path)
	if err != nil {
		return created || changed, err
	}
	removed, err := l.removeSegments(path)
	if err != nil {
		return created || changed || removed, err
	}
	summarized, err := l.saveSummaries(path)
	return created || changed || removed || summarized, err
}

// saveFiles writes the peers' files (Save).
func (l *Ledger) saveFiles(path string) (bool, error) {
	if l.changed == nil {
		files, err := l.Files()
		if err != nil {
			return false, err
		}
		changed, err := statefile.Write(path, files)
		if err == nil {
			l.changed = map[string]bool{}
		}
		return changed, err
	}
	if len(l.changed) == 0 {
		// Nothing changed since Load or the last Save: no file to encode,
		// so no pass over the records to find their files.
		return false, nil
	}
	files, err := l.files(func(name string) bool { return l.changed[name] })
	if err != nil {
		return false, err
	}
	var gone []string
	for name := range l.changed {
		if _, ok := files[name]; !ok {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)
	changed, err := statefile.WriteSome(path, files, gone)
	if err == nil {
		clear(l.changed)
	}
	return changed, err
}

// Edits counts the changes made to the ledger through its methods since
// it was made: what is computed from its records holds while the count
// stays the same.
func (l *Ledger) Edits() int { return l.edits }

// touch notes that records filed under these URLs changed.
func (l *Ledger) touch(urls ...string) {
	l.edits++
	if l.changed == nil && l.unsealed == nil {
		return
	}
	for _, u := range urls {
		l.fileChanged(statefile.PeerFileName(u))
	}
}
