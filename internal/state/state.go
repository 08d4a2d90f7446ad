package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/meshnode/meshnode/internal/atomicfile"
)

// State is the content of mesh-state/polling-cursors.json.
type State struct {
	// Cursors holds one cursor per peer, keyed by the peer's trace URL.
	Cursors map[string]*Cursor `json:"cursors"`
	// SeenHashes maps each processed file hash to when it was first seen,
	// the first-seen times docs/protocol.md §6.4 asks for.
	SeenHashes map[string]time.Time `json:"seen_hashes"`
	// Hosts keeps what each host (host[:port]) asked of us across runs.
	Hosts map[string]*Host `json:"hosts,omitempty"`
}

// Host is the politeness a host asked for that outlives one heartbeat. Its
// fields mirror the fetcher's host state; this package only stores them.
type Host struct {
	CooldownUntil time.Time     `json:"cooldown_until,omitzero"`
	CrawlDelay    time.Duration `json:"crawl_delay,omitzero"`
	RobotsFetched time.Time     `json:"robots_fetched,omitzero"`
	Robots        string        `json:"robots,omitzero"`
}

// New returns an empty state.
func New() *State {
	return &State{Cursors: map[string]*Cursor{}, SeenHashes: map[string]time.Time{}}
}

// Cursor returns the cursor of the peer at url, creating an empty one when
// the peer is new.
func (s *State) Cursor(url string) *Cursor {
	if s.Cursors == nil {
		s.Cursors = map[string]*Cursor{}
	}
	c := s.Cursors[url]
	if c == nil {
		c = &Cursor{}
		s.Cursors[url] = c
	}
	return c
}

// Load reads the state file at path. A missing file gives an empty state;
// a file that cannot be read or decoded gives a *CorruptError and is left
// untouched. Seed 000's older shape, where seen_hashes is a list, is read
// too: those hashes count as first seen now.
func Load(path string) (*State, error) {
	return load(path, time.Now)
}

func load(path string, now func() time.Time) (*State, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return New(), nil
	}
	if err != nil {
		return nil, &CorruptError{Path: path, Err: err}
	}
	s, err := decode(data, now().UTC().Truncate(time.Second))
	if err != nil {
		return nil, Corrupt(path, data, err)
	}
	return s, nil
}

// fileState is State as read from disk: seen_hashes may be a list.
type fileState struct {
	Cursors    map[string]*Cursor `json:"cursors"`
	SeenHashes json.RawMessage    `json:"seen_hashes"`
	Hosts      map[string]*Host   `json:"hosts"`
}

func decode(data []byte, now time.Time) (*State, error) {
	var f fileState
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	s := New()
	for url, c := range f.Cursors {
		if c != nil {
			s.Cursors[url] = c
		}
	}
	s.Hosts = f.Hosts
	seen, err := decodeSeen(f.SeenHashes, now)
	if err != nil {
		return nil, err
	}
	s.SeenHashes = seen
	return s, nil
}

// decodeSeen reads seen_hashes as a map of first-seen times, or as seed
// 000's first sketch, a plain list, giving each hash the time now.
func decodeSeen(raw json.RawMessage, now time.Time) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return out, nil
	}
	if raw[0] == '[' {
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("seen_hashes: %w", err)
		}
		for _, h := range list {
			out[h] = now
		}
		return out, nil
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("seen_hashes: %w", err)
	}
	return out, nil
}

// Marshal returns the bytes Save writes: keys sorted, two-space indent, a
// final newline, times in UTC, gaps merged and capped, retries sorted.
func (s *State) Marshal() ([]byte, error) {
	out := State{
		Cursors:    make(map[string]*Cursor, len(s.Cursors)),
		SeenHashes: make(map[string]time.Time, len(s.SeenHashes)),
	}
	for url, c := range s.Cursors {
		if c != nil {
			out.Cursors[url] = c.normalized()
		}
	}
	for h, t := range s.SeenHashes {
		out.SeenHashes[h] = t.UTC()
	}
	if len(s.Hosts) > 0 {
		out.Hosts = make(map[string]*Host, len(s.Hosts))
		for name, h := range s.Hosts {
			if h != nil {
				hc := *h
				hc.CooldownUntil, hc.RobotsFetched = utc(h.CooldownUntil), utc(h.RobotsFetched)
				out.Hosts[name] = &hc
			}
		}
	}
	data, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	return append(data, '\n'), nil
}

// Save writes the state to path atomically and reports whether the bytes
// on disk changed; an unchanged state leaves the file (and its mtime) alone.
func (s *State) Save(path string) (bool, error) {
	data, err := s.Marshal()
	if err != nil {
		return false, err
	}
	return atomicfile.WriteFileIfChanged(path, data, 0o644)
}

// utc returns t in UTC without its monotonic reading; the zero time stays
// zero so omitzero leaves it out.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Round(0)
}

// SortedURLs returns the cursor keys in order, for stable output.
func (s *State) SortedURLs() []string {
	urls := make([]string, 0, len(s.Cursors))
	for u := range s.Cursors {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	return urls
}
