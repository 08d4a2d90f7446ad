package state

import (
	"encoding/json"
	"fmt"
	"reflect"
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
			k := seenKey(h)
			s.SeenHashes[k] = t
			s.addSeenFrom(k, f.URL)
		}
		if len(f.SeenHashes) > 0 {
			s.inline = true
			s.markStale(f.URL)
		}
	}
	return nil
}

// Files returns the cursors' split state's files by name, as Save leaves
// them: keys sorted, two-space indent, a final newline, times in UTC, gaps
// merged and capped, retries sorted. See Save for timesBefore. The
// peers' seen hashes are in files of their own (seenfiles.go).
func (s *State) Files(timesBefore time.Time) (map[string][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out, err := s.files(timesBefore)
	if err != nil {
		return nil, err
	}
	files := out.write
	for name := range out.kept {
		files[name] = s.onDisk[name]
	}
	return files, nil
}

// cursorFiles is what Save writes of the cursors' split state.
type cursorFiles struct {
	// write are the files to write, by name: the shared files, and the
	// file of each peer whose cursor changed since Load read it or Save
	// wrote it, with the cursor each holds (cursors, by name).
	write   map[string][]byte
	cursors map[string]writtenCursor
	// kept are the names of the files of the peers whose cursor did not
	// change: they are left as they are.
	kept map[string]bool
	// gone are the files on disk that no longer hold anything.
	gone []string
	// owned are the hashes seen from each peer with a cursor, by URL,
	// for the peers whose seen hashes were read.
	owned map[string]map[manifest.Hash]time.Time
}

// writtenCursor is a cursor as its file is written.
type writtenCursor struct {
	url    string
	cursor *Cursor
}

// files returns the cursors' files Save writes. Only a cursor that
// changed is encoded: one that equals the cursor its file was read as or
// last written as keeps its file, so a heartbeat's state work follows
// the peers it changed, not the mesh's size. The caller holds s.mu.
func (s *State) files(timesBefore time.Time) (cursorFiles, error) {
	out := cursorFiles{write: map[string][]byte{}, cursors: map[string]writtenCursor{}, kept: map[string]bool{}}
	for url, c := range s.Cursors {
		if !writable(url, c) {
			continue
		}
		c.url = url
		name := statefile.PeerFileName(url)
		w, same := s.cursorToWrite(url, c, timesBefore)
		if _, onDisk := s.onDisk[name]; same && onDisk {
			out.kept[name] = true
			continue
		}
		if err := put(out.write, name, &peerFile{URL: url, Cursor: w}); err != nil {
			return out, err
		}
		out.cursors[name] = writtenCursor{url: url, cursor: w}
	}
	unowned := map[manifest.Hash]time.Time{}
	out.owned = s.ownedSeen(unowned)
	if len(unowned) > 0 {
		if err := put(out.write, seenName, seenFileOfNone{SeenHashes: unowned}); err != nil {
			return out, err
		}
	}
	if hosts := s.normalizedHosts(); len(hosts) > 0 {
		if err := put(out.write, hostsName, hostsFile{Hosts: hosts}); err != nil {
			return out, err
		}
	}
	for name := range s.onDisk {
		if _, ok := out.write[name]; !ok && !out.kept[name] {
			out.gone = append(out.gone, name)
		}
	}
	sort.Strings(out.gone)
	return out, nil
}

// ownedSeen returns the seen hashes read so far of each peer with a
// cursor, by URL, and adds those seen from no peer at all (an older
// node's single list) to unowned. A hash seen only from peers that no
// longer have a cursor (a learned peer forgotten: forgetPeer in
// internal/heartbeat) is dropped, not made nobody's: a hash seen from no
// peer counts as seen from every peer (SeenFrom), so a squatter's files
// would hide the real agent's same bytes for 90 days (docs/security.md).
// The caller holds s.mu.
func (s *State) ownedSeen(unowned map[manifest.Hash]time.Time) map[string]map[manifest.Hash]time.Time {
	owned := map[string]map[manifest.Hash]time.Time{}
	for h, t := range s.SeenHashes {
		isOwned := false
		for _, url := range s.seenFrom[h] {
			if !writable(url, s.Cursors[url]) {
				continue
			}
			hashes := owned[url]
			if hashes == nil {
				hashes = map[manifest.Hash]time.Time{}
				owned[url] = hashes
			}
			hashes[h], isOwned = t.UTC(), true
		}
		if !isOwned && len(s.seenFrom[h]) == 0 {
			unowned[h] = t.UTC()
		}
	}
	return owned
}

// cursorToWrite is c normalized, with the poll times (last_polled,
// last_success, and next_poll, which a poll derives from them) its file
// holds when only those changed and they are not due to be written: a
// quiet peer's due time is derived from what changes only with news
// (Cursor.Due), so a poll that found nothing new leaves its file as it
// was. same reports that it is the cursor the file holds (Load read it
// or Save wrote it), so the file need not be encoded again.
func (s *State) cursorToWrite(url string, c *Cursor, timesBefore time.Time) (w *Cursor, same bool) {
	n := c.normalized()
	old, ok := s.loaded[url]
	if !ok || s.stale[url] {
		return n, false
	}
	if sameCursor(n, &old) {
		return n, true
	}
	if !timesBefore.IsZero() && old.LastPolled.Before(timesBefore) {
		return n, false
	}
	kept := *n
	kept.LastPolled, kept.LastSuccess, kept.NextPoll = old.LastPolled, old.LastSuccess, old.NextPoll
	if sameCursor(&kept, &old) {
		return &kept, true
	}
	return n, false
}

// sameCursor reports whether a and b, normalized, are written alike.
// It compares the values, not their encodings: equal values encode
// alike, and values that differ only where the encoding cannot tell (an
// empty map and none) are merely encoded and compared as bytes.
func sameCursor(a, b *Cursor) bool {
	return reflect.DeepEqual(a, b)
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

// encodeHook, when set (tests only), is told the name of every file
// encoded.
var encodeHook func(name string)

func put(files map[string][]byte, name string, v any) error {
	if encodeHook != nil {
		encodeHook(name)
	}
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
