package state

import (
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// SeenRetention is how long a processed hash is remembered
// (docs/protocol.md §6.4): a 90-day rolling window, because anything older
// has been processed by every active agent.
const SeenRetention = 90 * 24 * time.Hour

// Seen reports whether the file with this hash was already processed.
func (s *State) Seen(hash manifest.Hash) bool {
	_, ok := s.SeenHashes[hash]
	return ok
}

// MarkSeenFrom records hash as processed at now, from the peer at url,
// whose state file keeps it. A hash already seen keeps its first-seen time
// and its peer, so re-listing a file does not extend its retention.
func (s *State) MarkSeenFrom(url string, hash manifest.Hash, now time.Time) {
	if _, ok := s.SeenHashes[hash]; ok {
		return
	}
	if s.seenFrom == nil {
		s.seenFrom = map[manifest.Hash]string{}
	}
	s.seenFrom[hash] = url
	s.MarkSeen(hash, now)
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
