package copies

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/peertext"
	"github.com/meshnode/meshnode/internal/statefile"
)

// MaxTextBytes bounds the text of one copy: more than nine traces in ten
// of the real mesh fit whole (median 3.7 KB, 90th percentile 9.3 KB); a
// longer one is cut at a line and its reading view links the rest.
const MaxTextBytes = 16 << 10

// Copy is the kept text of one peer's trace.
type Copy struct {
	// AgentURL is the trace URL of the agent that published it: the file
	// of mesh-state/copies/ it is kept in.
	AgentURL string `json:"agent_url"`
	// Text is the trace's markdown (front matter and trailing metadata
	// block removed), cleaned by peertext.CleanText and cut at a line to at
	// most MaxTextBytes.
	Text string `json:"text"`
	// Cut says the trace was longer than Text.
	Cut bool `json:"cut,omitempty"`
}

// Copies is what mesh-state/copies/ holds, all peers together, by the
// hash of the trace each copy was taken from.
type Copies struct {
	ByHash map[manifest.Hash]*Copy `json:"copies"`
	// read are the bytes of each file as Load read them, by name, so Save
	// rewrites the files that changed without opening them again.
	read map[string][]byte
}

// New returns an empty set of copies.
func New() *Copies { return &Copies{ByHash: map[manifest.Hash]*Copy{}} }

// Of returns the copy of body, a verified trace's markdown, published by
// the agent at agentURL: cleaned, and cut at the last line break that
// keeps it within MaxTextBytes (at a character when a first line alone is
// longer).
func Of(agentURL string, body []byte) *Copy {
	text := peertext.CleanText(string(body))
	c := &Copy{AgentURL: agentURL, Text: text}
	if len(text) <= MaxTextBytes {
		return c
	}
	c.Cut = true
	cut := strings.LastIndexByte(text[:MaxTextBytes], '\n') + 1
	if cut == 0 {
		cut = MaxTextBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
	}
	c.Text = text[:cut]
	return c
}

// Put keeps c as the copy of the trace with hash h.
func (s *Copies) Put(h manifest.Hash, c *Copy) { s.ByHash[h] = c }

// Drop removes the copy of the trace with hash h, if there is one.
func (s *Copies) Drop(h manifest.Hash) { delete(s.ByHash, h) }

// Keep removes every copy whose hash is not in keep.
func (s *Copies) Keep(keep map[manifest.Hash]bool) {
	maps.DeleteFunc(s.ByHash, func(h manifest.Hash, _ *Copy) bool { return !keep[h] })
}

// Load reads the copies named by path (mesh-state/copies.json: the
// directory mesh-state/copies/, a file per peer). Nothing on disk gives
// none; a file that does not decode, or holds a copy over MaxTextBytes or
// an invalid hash, is a *statefile.CorruptError and is left untouched.
func Load(path string) (*Copies, error) {
	legacy, files, err := statefile.ReadFlat(path)
	if err != nil {
		return nil, err
	}
	s := New()
	s.read = files
	if legacy != nil {
		if err := s.merge(legacy); err != nil {
			return nil, statefile.Corrupt(path, legacy, err)
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := s.merge(files[name]); err != nil {
			return nil, statefile.Corrupt(statefile.FlatFilePath(path, name), files[name], err)
		}
	}
	return s, nil
}

// merge adds the copies of one file to s. A file a person edited is
// still held to the bounds: the site republishes what it holds.
func (s *Copies) merge(data []byte) error {
	byHash, ok := decodeSaved(data)
	if !ok {
		var in Copies
		if err := json.Unmarshal(data, &in); err != nil {
			return err
		}
		byHash = in.ByHash
	}
	for h, c := range byHash {
		if c == nil {
			continue
		}
		if !h.Valid() {
			return fmt.Errorf("copy of %q: not a sha256 hash", h)
		}
		if c.Text = peertext.CleanText(c.Text); len(c.Text) > MaxTextBytes {
			return fmt.Errorf("copy of %s: %d bytes of text, more than %d", h, len(c.Text), MaxTextBytes)
		}
		s.ByHash[h] = c
	}
	return nil
}

// Files returns the copies as Save writes them: a file per peer
// (statefile.PeerFileName of its agent URL), keys sorted, two-space
// indent, a final newline.
func (s *Copies) Files() (map[string][]byte, error) {
	parts := map[string]*Copies{}
	for h, c := range s.ByHash {
		name := statefile.PeerFileName(c.AgentURL)
		if parts[name] == nil {
			parts[name] = New()
		}
		parts[name].ByHash[h] = c
	}
	files := make(map[string][]byte, len(parts))
	for name, p := range parts {
		data, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("encode copies: %w", err)
		}
		files[name] = append(data, '\n')
	}
	return files, nil
}

// Save writes the copies named by path, a file per peer, each atomically
// and only when its bytes change (compared with what Load read, else with
// the file on disk), and removes the files of peers it holds none of; it
// reports whether anything on disk changed. It holds nothing of what it
// wrote: a later Save compares with the disk.
func (s *Copies) Save(path string) (bool, error) {
	files, err := s.Files()
	if err != nil {
		return false, err
	}
	changed, err := statefile.RewriteFlat(path, files, s.read)
	// What Load read is on disk no more. Holding what this Save wrote
	// instead (12 MB at MaxCopies) would serve a second Save, which a
	// heartbeat never makes.
	s.read = nil
	return changed, err
}
