package ledger

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"sort"

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

	// onDisk are the bytes of each file as Load read them or Save wrote
	// them, by name, so Save rewrites only what changed without reading
	// the files again.
	onDisk map[string][]byte
}

// New returns an empty ledger.
func New() *Ledger {
	return &Ledger{Traces: map[manifest.Hash]*Trace{}, Validations: map[string]*Validation{}, Rejected: map[string]*Rejection{}}
}

// Load reads the ledger named by path (mesh-state/ledger.json): the
// directory mesh-state/ledger/, one file per peer, and the single file
// older nodes kept at path if it is still there (statefile.Dir). Nothing
// on disk gives an empty ledger; a file that cannot be read or decoded
// gives a *statefile.CorruptError and is left untouched.
func Load(path string) (*Ledger, error) {
	legacy, files, err := statefile.Read(path)
	if err != nil {
		return nil, err
	}
	l := New()
	l.onDisk = files
	if legacy != nil {
		if err := l.merge(legacy); err != nil {
			return nil, statefile.Corrupt(path, legacy, err)
		}
	}
	dir := statefile.Dir(path)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := l.merge(files[name]); err != nil {
			return nil, statefile.Corrupt(filepath.Join(dir, name), files[name], err)
		}
	}
	return l, nil
}

// merge adds the records of one ledger file to l.
func (l *Ledger) merge(data []byte) error {
	in, err := decode(data)
	if err != nil {
		return err
	}
	maps.Copy(l.Traces, in.Traces)
	maps.Copy(l.Validations, in.Validations)
	maps.Copy(l.Rejected, in.Rejected)
	return nil
}

func decode(data []byte) (*Ledger, error) {
	var in Ledger
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, err
	}
	l := New()
	for k, t := range in.Traces {
		if t != nil {
			l.Traces[k] = t
		}
	}
	for _, v := range in.Validations {
		if v != nil {
			// Older nodes keyed a validation by the trace it names, so that
			// files naming none shared one key; each file is its own now.
			l.Validations[v.Key()] = v
		}
	}
	for k, r := range in.Rejected {
		if r != nil {
			l.Rejected[k] = r
		}
	}
	return l, nil
}

// Files returns the ledger's files as Save writes them: one per peer
// (state.PeerFileName of the trace's agent URL, the validator's URL or the
// rejected file's agent URL), each with keys sorted, two-space indent, a
// final newline and times in UTC.
func (l *Ledger) Files() (map[string][]byte, error) {
	parts := map[string]*Ledger{}
	part := func(url string) *Ledger {
		name := statefile.PeerFileName(url)
		if parts[name] == nil {
			parts[name] = New()
		}
		return parts[name]
	}
	for k, t := range l.Traces {
		if t != nil {
			part(t.AgentURL).Traces[k] = t.normalized()
		}
	}
	for k, v := range l.Validations {
		if v != nil {
			c := *v
			c.ValidatedAt = utc(v.ValidatedAt)
			part(v.ValidatorURL).Validations[k] = &c
		}
	}
	for k, r := range l.Rejected {
		if r != nil {
			c := *r
			c.At = utc(r.At)
			part(r.AgentURL).Rejected[k] = &c
		}
	}
	files := make(map[string][]byte, len(parts))
	for name, p := range parts {
		data, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("encode ledger: %w", err)
		}
		files[name] = append(data, '\n')
	}
	return files, nil
}

// Save writes the ledger named by path, one file per peer, each
// atomically and only when its bytes change, and removes the single file
// of older nodes; it reports whether anything on disk changed. A ledger
// Load read compares with the bytes it read (the node's lock keeps them
// current), so its files are not read again.
func (l *Ledger) Save(path string) (bool, error) {
	files, err := l.Files()
	if err != nil {
		return false, err
	}
	changed, err := statefile.Rewrite(path, files, l.onDisk)
	if err == nil && l.onDisk != nil {
		l.onDisk = files
	}
	return changed, err
}
