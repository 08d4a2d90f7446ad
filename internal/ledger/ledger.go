package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/state"
)

// Ledger is the content of mesh-state/ledger.json.
type Ledger struct {
	// Traces are peers' files by hash ("sha256:<hex>").
	Traces map[string]*Trace `json:"traces"`
	// Validations are keyed by ValidationKey(validator URL, trace hash):
	// one validator, one validation per trace (docs/protocol.md §7.3).
	Validations map[string]*Validation `json:"validations"`
	// Rejected are files whose bytes did not match their MANIFEST hash,
	// keyed by file URL.
	Rejected map[string]*Rejection `json:"rejected"`
}

// New returns an empty ledger.
func New() *Ledger {
	return &Ledger{Traces: map[string]*Trace{}, Validations: map[string]*Validation{}, Rejected: map[string]*Rejection{}}
}

// Load reads the ledger at path. A missing file gives an empty ledger; a
// file that cannot be read or decoded gives a *state.CorruptError and is
// left untouched.
func Load(path string) (*Ledger, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return New(), nil
	}
	if err != nil {
		return nil, &state.CorruptError{Path: path, Err: err}
	}
	l, err := decode(data)
	if err != nil {
		return nil, state.Corrupt(path, data, err)
	}
	return l, nil
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
	for k, v := range in.Validations {
		if v != nil {
			l.Validations[k] = v
		}
	}
	for k, r := range in.Rejected {
		if r != nil {
			l.Rejected[k] = r
		}
	}
	return l, nil
}

// Marshal returns the bytes Save writes: keys sorted, two-space indent, a
// final newline, times in UTC.
func (l *Ledger) Marshal() ([]byte, error) {
	out := New()
	for k, t := range l.Traces {
		if t != nil {
			out.Traces[k] = t.normalized()
		}
	}
	for k, v := range l.Validations {
		if v != nil {
			c := *v
			c.ValidatedAt = utc(v.ValidatedAt)
			out.Validations[k] = &c
		}
	}
	for k, r := range l.Rejected {
		if r != nil {
			c := *r
			c.At = utc(r.At)
			out.Rejected[k] = &c
		}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode ledger: %w", err)
	}
	return append(data, '\n'), nil
}

// Save writes the ledger to path atomically and reports whether the bytes
// on disk changed.
func (l *Ledger) Save(path string) (bool, error) {
	data, err := l.Marshal()
	if err != nil {
		return false, err
	}
	return atomicfile.WriteFileIfChanged(path, data, 0o644)
}
