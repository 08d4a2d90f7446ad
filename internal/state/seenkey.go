package state

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// seenKey is how a peer's seen file keeps hash: its fingerprint, the
// first 16 hex digits of the sha256 (64 bits, as a cursor keeps its
// MANIFEST's: sumOfHash), so that a new record adds 8 incompressible
// bytes there, not 32 the ledger holds too. A string that is not a
// well-formed "sha256:<64 hex>" is kept whole. A fingerprint is matched
// only within its own peer's hashes (SeenFrom), so two files that share
// one can only hide each other from the peer that listed the first; the
// hashes seen from no peer in particular stay whole, matched whole
// (docs/decisions.md, "A peer's seen hashes as fingerprints").
func seenKey(hash manifest.Hash) manifest.Hash {
	if sum := sumOfHash(hash); sum != "" {
		return manifest.Hash(sum)
	}
	return hash
}

// decodeSeenFile decodes a peer's seen file, its hashes by seenKey. older
// reports a file as older nodes wrote it, with whole hashes: Save keeps
// its bytes until what it holds changes. Two keys of one fingerprint keep
// the earlier time.
func decodeSeenFile(data []byte) (f seenFile, older bool, err error) {
	if err := json.Unmarshal(data, &f); err != nil {
		return seenFile{}, false, err
	}
	if f.URL == "" {
		return seenFile{}, false, errors.New("no url")
	}
	keyed := make(map[manifest.Hash]time.Time, len(f.SeenHashes))
	for h, t := range f.SeenHashes {
		k := seenKey(h)
		older = older || k != h
		if was, ok := keyed[k]; !ok || t.Before(was) {
			keyed[k] = t
		}
	}
	f.SeenHashes = keyed
	return f, older, nil
}

// holdsSeen reports whether data, a seen file, holds the hashes of url
// at these times, whatever form it has them in.
func holdsSeen(data []byte, url string, hashes map[manifest.Hash]time.Time) bool {
	f, _, err := decodeSeenFile(data)
	if err != nil || f.URL != url || len(f.SeenHashes) != len(hashes) {
		return false
	}
	for k, t := range hashes {
		if was, ok := f.SeenHashes[k]; !ok || !was.Equal(t) {
			return false
		}
	}
	return true
}
