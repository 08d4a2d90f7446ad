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
	_, ok := s.SeenHashes[hash]
	return ok
}

// SeenFrom reports whether the file with this hash was already processed
// as the peer at url's: seen from that peer, or from no peer in particular
// (a hash an older node's single file listed). The same bytes listed by
// another peer are that peer's file too, read and recorded as its own
// (docs/decisions.md, "Copies"), so a mirror that lists them first cannot
// make us skip the author's.
func (s *State) SeenFrom(url string, hash manifest.Hash) bool {
	if _, ok := s.SeenHashes[hash]; !ok {
		return false
	}
	from := s.seenFrom[hash]
	return len(from) == 0 || slices.Contains(from, url)
}

// MarkSeenFrom records hash as processed at now, from the peer at url,
// whose state file keeps it; a hash several peers listed is kept in each
// one's file. A hash already seen keeps its first-seen time, so re-listing
// a file does not extend its retention.
func (s *State) MarkSeenFrom(url string, hash manifest.Hash, now time.Time) {
	s.addSeenFrom(hash, url)
	s.MarkSeen(hash, now)
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
	if s.SeenHashes == nil {
		s.SeenHashes = map[manifest.Hash]time.Time{}
	}
	if _, ok := s.SeenHashes[hash]; !ok {
		s.SeenHashes[hash] = utc(now)
	}
}

// EvictSeen drops the hashes first seen more than SeenRetention before now
// and returns how many it dropped. The heartbeat runs it at its start.
func (s *State) EvictSeen(now time.Time) int {
	cutoff := now.Add(-SeenRetention)
	n := 0
	for h, t := range s.SeenHashes {
		if t.Before(cutoff) {
			delete(s.SeenHashes, h)
			n++
		}
	}
	return n
}
