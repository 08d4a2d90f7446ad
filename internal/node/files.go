package node

import (
	"fmt"
	"io/fs"
	"path"
	"sort"

	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

// Files returns the node's publishable files of one published directory
// (TracesDir, ValidationsDir, DisputesDir), or of all three for "", in seq
// order: directory by directory as PublishedDirs lists them, each by name.
func (s *Snapshot) Files(dir string) []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []File
	for _, f := range s.files {
		if dir == "" || path.Dir(f.Path) == dir {
			out = append(out, f)
		}
	}
	return out
}

// Held returns the entries of the published directories that are not
// publishable, with why.
func (s *Snapshot) Held() []Held { return append([]Held(nil), s.held...) }

// File returns the publishable file at rel, if the node has it.
func (s *Snapshot) File(rel string) (File, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.find(rel)
	if !ok {
		return File{}, false
	}
	return s.files[i], true
}

// find returns where rel is, or would go, in s.files; s.mu is held.
func (s *Snapshot) find(rel string) (int, bool) {
	key := fileOrder(rel)
	i := sort.Search(len(s.files), func(i int) bool { return !lessOrder(fileOrder(s.files[i].Path), key) })
	return i, i < len(s.files) && s.files[i].Path == rel
}

// fileOrder is a file's place in seq order: its directory's index in
// PublishedDirs, then its name.
func fileOrder(rel string) [2]string {
	d := path.Dir(rel)
	for i, p := range PublishedDirs {
		if d == p {
			return [2]string{string(rune('0' + i)), path.Base(rel)}
		}
	}
	return [2]string{"9", rel}
}

func lessOrder(a, b [2]string) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// OwnHashes returns the hashes of our own traces, published or not.
func (s *Snapshot) OwnHashes() map[manifest.Hash]bool {
	out := map[manifest.Hash]bool{}
	for _, f := range s.Files(TracesDir) {
		if f.Err == nil {
			out[f.Hash] = true
		}
	}
	return out
}

// Trace returns our trace file at rel parsed, parsing it once however
// often it is asked for; nil with an error when it is not a trace.
func (s *Snapshot) Trace(rel string) (*trace.Trace, error) {
	f, ok := s.File(rel)
	if !ok {
		return nil, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	}
	if f.Err != nil {
		return nil, f.Err
	}
	s.mu.Lock()
	p, ok := s.traces[rel]
	s.mu.Unlock()
	if !ok {
		p = &parsedTrace{}
		p.t, p.err = trace.Parse(f.Data)
		s.mu.Lock()
		s.traces[rel] = p
		s.mu.Unlock()
	}
	return p.t, p.err
}

// Validation returns the record of f, our validation file
// (ledger.ValidationOf: as the file says, who it counts for left to the
// caller), parsing each file once however often it is asked for, by path
// and hash: SIGNAL's input is gathered again after a heartbeat writes,
// and a year of ours is tens of thousands of files. The record is the
// caller's own copy, whose strings share nothing with the file's bytes;
// an error says the file is not a validation.
func (s *Snapshot) Validation(f File) (ledger.Validation, error) {
	if f.Err != nil {
		return ledger.Validation{}, f.Err
	}
	s.mu.Lock()
	p, ok := s.validations[f.Path]
	s.mu.Unlock()
	if !ok || p.hash != f.Hash {
		p = parseValidation(f)
		s.mu.Lock()
		s.validations[f.Path] = p
		s.mu.Unlock()
	}
	return p.v, p.err
}

// parsedValidation is a validation file's record, or why it is none, for
// the file of that hash.
type parsedValidation struct {
	hash manifest.Hash
	v    ledger.Validation
	err  error
}

// parsingValidation, when set (tests only), is told each validation file
// a snapshot parses.
var parsingValidation func(rel string)

// parseValidation parses f, keeping only the record's own strings: Parse
// cuts them from a copy of the whole file, which the snapshot would
// otherwise hold for as long as it holds the record.
func parseValidation(f File) parsedValidation {
	if parsingValidation != nil {
		parsingValidation(f.Path)
	}
	v, err := validation.Parse(f.Data)
	if err != nil {
		return parsedValidation{hash: f.Hash, err: err}
	}
	lv := ledger.ValidationOf(v)
	lv.Validator, lv.ValidatorURL = strings.Clone(lv.Validator), strings.Clone(lv.ValidatorURL)
	lv.TraceURL, lv.Result = strings.Clone(lv.TraceURL), strings.Clone(lv.Result)
	lv.TraceHash = manifest.Hash(strings.Clone(string(lv.TraceHash)))
	return parsedValidation{hash: f.Hash, v: lv}
}
