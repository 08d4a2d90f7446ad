package state

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"

	"github.com/meshnode/meshnode/internal/statefile"
)

// Names of the split state's shared files, beside the peers' files (whose
// names end in 8 hex digits, so they never clash with these).
const (
	hostsName = "hosts.json"
	seenName  = "seen.json"
)

// PollTimesEvery is how old a peer's stored poll times may grow before a
// presence refresh writes them although nothing else changed.
const PollTimesEvery = 24 * time.Hour

// peerFile is one peer's file: its cursor. Older nodes kept the hashes
// seen from the peer in it too; they are read from there and written to
// the peer's seen file (seenfiles.go).
type peerFile struct {
	URL        string                      `json:"url"`
	Cursor     *Cursor                     `json:"cursor"`
	SeenHashes map[manifest.Hash]time.Time `json:"seen_hashes,omitempty"`
}

// hostsFile is hosts.json: the hosts' politeness.
type hostsFile struct {
	Hosts map[string]*Host `json:"hosts"`
}

// seenFileOfNone is seen.json: hashes seen from no known peer, such as
// those an older node's single file listed; they leave by the 90-day
// eviction.
type seenFileOfNone struct {
	SeenHashes map[manifest.Hash]time.Time `json:"seen_hashes"`
}

// decodeSplit adds one file of the split directory to s.
func (s *State) decodeSplit(name string, data []byte) error {
	switch name {
	case hostsName:
		var f hostsFile
		if err := json.Unmarshal(data, &f); err != nil {
			return err
		}
		for k, h := range f.Hosts {
			if h != nil {
				if s.Hosts == nil {
					s.Hosts = map[string]*Host{}
				}
				s.Hosts[k] = h
			}
		}
	case seenName:
		var f seenFileOfNone
		if err := json.Unmarshal(data, &f); err != nil {
			return err
		}
		for h, t := range f.SeenHashes {
			s.SeenHashes[h] = t
		}
	default:
		var f peerFile
		if err := json.Unmarshal(data, &f); err != nil {
			return err
		}
		if !writable(f.URL, f.Cursor) {
			return fmt.Errorf("no url or cursor")
		}
		f.Cursor.url = f.URL
		s.Cursors[f.URL] = f.Cursor
		for h, t := range f.SeenHashes {
			s.SeenHashes[h] = t
			s.addSeenFrom(h, f.URL)
		}
		s.inline = s.inline || len(f.SeenHashes) > 0
	}
	return nil
}

// Files returns the cursors' split state's files by name, as Save writes
// them: keys sorted, two-space indent, a final newline, times in UTC, gaps
// merged and capped, retries sorted. See Save for timesBefore. The
// peers' seen hashes are in files of their own (seenfiles.go).
func (s *State) Files(timesBefore time.Time) (map[string][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	files, _, err := s.files(timesBefore)
	return files, err
}

// files returns the cursors' files and the hashes seen from each peer
// with a cursor, by URL. The caller holds s.mu.
func (s *State) files(timesBefore time.Time) (map[string][]byte, map[string]map[manifest.Hash]time.Time, error) {
	peers := make(map[string]*peerFile, len(s.Cursors))
	owned := make(map[string]map[manifest.Hash]time.Time, len(s.Cursors))
	for url, c := range s.Cursors {
		if writable(url, c) {
			c.url = url
			peers[url] = &peerFile{URL: url, Cursor: s.cursorToWrite(url, c, timesBefore)}
			owned[url] = nil
		}
	}
	unowned := map[manifest.Hash]time.Time{}
	for h, t := range s.SeenHashes {
		isOwned := false
		for _, url := range s.seenFrom[h] {
			if hashes, ok := owned[url]; ok {
				if hashes == nil {
					hashes = map[manifest.Hash]time.Time{}
					owned[url] = hashes
				}
				hashes[h], isOwned = t.UTC(), true
			}
		}
		if !isOwned {
			unowned[h] = t.UTC()
		}
	}
	files := make(map[string][]byte, len(peers)+2)
	for url, p := range peers {
		if err := put(files, statefile.PeerFileName(url), p); err != nil {
			return nil, nil, err
		}
	}
	if len(unowned) > 0 {
		if err := put(files, seenName, seenFileOfNone{SeenHashes: unowned}); err != nil {
			return nil, nil, err
		}
	}
	if hosts := s.normalizedHosts(); len(hosts) > 0 {
		if err := put(files, hostsName, hostsFile{Hosts: hosts}); err != nil {
			return nil, nil, err
		}
	}
	return files, owned, nil
}

// cursorToWrite is c normalized, with the poll times (last_polled,
// last_success, and next_poll, which a poll derives from them) it was
// loaded with when only those changed and they are not due to be written:
// a quiet peer's due time is derived from what changes only with news
// (Cursor.Due), so a poll that found nothing new leaves its file as it was.
func (s *State) cursorToWrite(url string, c *Cursor, timesBefore time.Time) *Cursor {
	n := c.normalized()
	old, ok := s.loaded[url]
	if !ok || (!timesBefore.IsZero() && old.LastPolled.Before(timesBefore)) {
		return n
	}
	kept := *n
	kept.LastPolled, kept.LastSuccess, kept.NextPoll = old.LastPolled, old.LastSuccess, old.NextPoll
	if same(&kept, &old) {
		return &kept
	}
	return n
}

func same(a, b *Cursor) bool {
	x, errX := json.Marshal(a)
	y, errY := json.Marshal(b)
	return errX == nil && errY == nil && string(x) == string(y)
}

func (s *State) normalizedHosts() map[string]*Host {
	out := make(map[string]*Host, len(s.Hosts))
	for name, h := range s.Hosts {
		if h != nil {
			hc := *h
			hc.CooldownUntil, hc.RobotsFetched = utc(h.CooldownUntil), utc(h.RobotsFetched)
			out[name] = &hc
		}
	}
	return out
}

func put(files map[string][]byte, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state %s: %w", name, err)
	}
	files[name] = append(data, '\n')
	return nil
}

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
