package state

import (
	"slices"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// SeenRetention is how long a processed hash is remembered
// (docs/protocol.md §6.4): a 90-day rolling window, because anything older
// has been processed by every active agent.
const SeenRetention = 90 * 24 * time.Hour

// Seen reports whether the file with this hash was already processed,
// from any peer.
func (s *State) Seen(hash manifest.Hash) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readAllSeen(); err != nil {
		s.fail(err)
		return true
	}
	_, whole := s.SeenHashes[hash]
	_, fromPeer := s.SeenHashes[seenKey(hash)]
	return whole || fromPeer
}

// SeenFrom reports whether the file with this hash was already processed
// as the peer at url's: seen from that peer (by its fingerprint, seenKey),
// or from no peer in particular (the whole hash, as an older node's
// single file listed it). The same bytes listed by another peer are that
// peer's file too, read and recorded as its own (docs/decisions.md,
// "Copies"), so a mirror that lists them first cannot make us skip the
// author's, nor can a file that shares their fingerprint. It reads the
// peer's seen file the first time; one that cannot be read counts every
// hash as seen (see Err).
func (s *State) SeenFrom(url string, hash manifest.Hash) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ensureSeen(url); err != nil {
		s.fail(err)
		return true
	}
	if _, ok := s.SeenHashes[hash]; ok && len(s.seenFrom[hash]) == 0 {
		return true
	}
	k := seenKey(hash)
	_, ok := s.SeenHashes[k]
	return ok && slices.Contains(s.seenFrom[k], url)
}

// MarkSeenFrom records hash as processed at now, from the peer at url,
// whose state file keeps its fingerprint; a hash several peers listed is
// kept in each one's file. A hash already seen keeps its first-seen time,
// so re-listing a file does not extend its retention; one seen from no
// peer in particular becomes the peer's, as it was before fingerprints.
func (s *State) MarkSeenFrom(url string, hash manifest.Hash, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ensureSeen(url); err != nil {
		s.fail(err)
	}
	k := seenKey(hash)
	if t, ok := s.SeenHashes[hash]; ok && k != hash && len(s.seenFrom[hash]) == 0 {
		delete(s.SeenHashes, hash)
		now = t
	}
	s.addSeenFrom(k, url)
	s.markSeen(k, now)
}

// addSeenFrom adds url to the peers hash was seen from, kept sorted.
func (s *State) addSeenFrom(hash manifest.Hash, url string) {
	if s.seenFrom == nil {
		s.seenFrom = map[manifest.Hash][]string{}
	}
	urls := s.seenFrom[hash]
	if i, found := slices.BinarySearch(urls, url); !found {
		s.seenFrom[hash] = slices.Insert(slices.Clone(urls), i, url)
	}
}

// MarkSeen records hash as processed at now, from no peer in particular.
// A hash already seen keeps its first-seen time.
func (s *State) MarkSeen(hash manifest.Hash, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.markSeen(hash, now)
}

func (s *State) markSeen(hash manifest.Hash, now time.Time) {
	if s.SeenHashes == nil {
		s.SeenHashes = map[manifest.Hash]time.Time{}
	}
	if _, ok := s.SeenHashes[hash]; !ok {
		s.SeenHashes[hash] = utc(now)
	}
}

// EvictSeen drops the hashes first seen more than SeenRetention before now
// and returns how many it dropped. The heartbeat runs it at its start. A
// peer's seen file read later drops them as it is read, and one never
// read keeps them until a poll of that peer reads it.
func (s *State) EvictSeen(now time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	cutoff := now.Add(-SeenRetention)
	s.evictBefore = cutoff
	n := 0
	for h, t := range s.SeenHashes {
		if t.Before(cutoff) {
			delete(s.SeenHashes, h)
			n++
		}
	}
	return n
}

// ForgetSeen makes the hashes not seen, from any peer: every peer's seen
// file is read first, so none keeps them (nor another file of the same
// fingerprint, which is then merely fetched again).
func (s *State) ForgetSeen(hashes []manifest.Hash) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readAllSeen(); err != nil {
		s.fail(err)
	}
	for _, h := range hashes {
		delete(s.SeenHashes, h)
		delete(s.SeenHashes, seenKey(h))
	}
}
