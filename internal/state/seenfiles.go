package state

import (
	"sort"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// A peer's seen hashes are kept apart from its cursor, in a file of its
// own under mesh-state/polling-cursors-seen/, named as its cursor's file:
// a heartbeat reads every cursor to know whom to poll, but a peer's seen
// hashes only when a poll of it lists a file to judge, so a heartbeat
// that finds nothing new reads none of them (docs/decisions.md, "A quiet
// heartbeat"). Load lists that directory and reads a file the first time
// the State is asked about its peer's hashes (SeenFrom, MarkSeenFrom,
// Rename); Save writes the files it read, if they changed, and leaves the
// others as they are.

// SeenPath names the split state of the peers' seen hashes beside the
// cursors' split state named by path: mesh-state/polling-cursors-seen/
// beside mesh-state/polling-cursors/.
func SeenPath(path string) string { return statefile.Dir(path) + "-seen.json" }

// seenFile is a peer's file of seen hashes, each kept as its seenKey
// (older nodes kept whole hashes, which read as theirs).
type seenFile struct {
	URL        string                      `json:"url"`
	SeenHashes map[manifest.Hash]time.Time `json:"seen_hashes"`
}

// listSeen records the seen files on disk beside the cursors at path as
// not read yet, without opening them.
func (s *State) listSeen(path string) error {
	s.path = path
	s.seenOnDisk = map[string][]byte{}
	s.seenOlder = map[string]bool{}
	s.unread = map[string]bool{}
	names, err := statefile.Names(SeenPath(path))
	if err != nil {
		return err
	}
	for _, name := range names {
		s.unread[name] = true
	}
	return nil
}

// ensureSeen reads the seen hashes of the peer at url, unless they were
// read already. The caller holds s.mu.
func (s *State) ensureSeen(url string) error {
	if name := statefile.PeerFileName(url); s.unread[name] {
		return s.readSeen(name)
	}
	return nil
}

// readSeen reads the seen file name into s, dropping the hashes
// EvictSeen would have dropped. The caller holds s.mu.
func (s *State) readSeen(name string) error {
	data, err := s.shards.ReadOne(SeenPath(s.path), name)
	if err != nil {
		return err
	}
	var f seenFile
	if data != nil {
		var older bool
		if f, older, err = decodeSeenFile(data); err != nil {
			return statefile.Corrupt(statefile.FilePath(SeenPath(s.path), name), data, err)
		}
		s.seenOnDisk[name] = data
		if older {
			s.seenOlder[name] = true
		}
	}
	delete(s.unread, name)
	if s.SeenHashes == nil {
		s.SeenHashes = map[manifest.Hash]time.Time{}
	}
	for h, t := range f.SeenHashes {
		if t.Before(s.evictBefore) {
			continue
		}
		if _, ok := s.SeenHashes[h]; !ok {
			s.SeenHashes[h] = t
		}
		s.addSeenFrom(h, f.URL)
	}
	return nil
}

// readAllSeen reads every seen file not read yet. The caller holds s.mu.
func (s *State) readAllSeen() error {
	names := make([]string, 0, len(s.unread))
	for name := range s.unread {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := s.readSeen(name); err != nil {
			return err
		}
	}
	return nil
}

// orphaned reports whether some seen hashes belong to peers that no
// longer have a cursor, in a file not read or in memory: Files drops
// those, and their files, which needs every peer's file read to tell (a
// hash another peer listed stays that peer's). The caller holds s.mu.
func (s *State) orphaned() bool {
	names := make(map[string]bool, len(s.Cursors))
	for url, c := range s.Cursors {
		if writable(url, c) {
			names[statefile.PeerFileName(url)] = true
		}
	}
	for name := range s.unread {
		if !names[name] {
			return true
		}
	}
	for _, urls := range s.seenFrom {
		for _, url := range urls {
			if _, ok := s.Cursors[url]; !ok {
				return true
			}
		}
	}
	return false
}

// seenFiles returns the seen files of the peers whose hashes were read,
// by name, with the hashes of each, and the names of the files read that
// no longer hold any. A peer whose file was not read keeps it as it is,
// and so does one an older node wrote until what it holds changes, so
// that the upgrade alone commits nothing.
func (s *State) seenFiles(owned map[string]map[manifest.Hash]time.Time) (files map[string][]byte, gone []string, err error) {
	files = map[string][]byte{}
	for url, hashes := range owned {
		name := statefile.PeerFileName(url)
		if s.unread[name] || len(hashes) == 0 {
			continue
		}
		if err := put(files, name, seenFile{URL: url, SeenHashes: hashes}); err != nil {
			return nil, nil, err
		}
		if old := s.seenOnDisk[name]; s.seenOlder[name] && holdsSeen(old, url, hashes) {
			files[name] = old
		}
	}
	for name := range s.seenOnDisk {
		if _, ok := files[name]; !ok {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)
	return files, gone, nil
}
