package ledger

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
)

// A change that takes a peer out of a shard segment writes the segment
// again without it, under a new name, and removes the old one at the end
// of Save; a run that stops in between leaves both, the neighbours' entries
// byte-equal in each. The set to remove was in memory only, so the next
// load finds such a segment and has the next Save remove it
// (docs/decisions.md, "Crashes"). Nothing may be lost: a segment is
// removed only when another one of its group that stays holds every one of
// its entries, byte for byte.

// redundantShards is the segments of segs, the shard segments of one
// quarter and shard by rel with their entries, that Save may remove:
// those whose every entry another one that stays holds byte-equal. The
// smaller go first, so of two alike the one sorting first goes, and a
// removed one's entries always stay in one kept.
func redundantShards(segs map[string]map[string]json.RawMessage) map[string]bool {
	rels := slices.Sorted(maps.Keys(segs))
	slices.SortStableFunc(rels, func(a, b string) int { return cmp.Compare(len(segs[a]), len(segs[b])) })
	gone := map[string]bool{}
	for _, s := range rels {
		for _, t := range rels {
			if t != s && !gone[t] && holdsAll(segs[t], segs[s]) {
				gone[s] = true
				break
			}
		}
	}
	return gone
}

// holdsAll reports whether t holds every entry of s, byte-equal.
func holdsAll(t, s map[string]json.RawMessage) bool {
	for dir, e := range s {
		if o, ok := t[dir]; !ok || !bytes.Equal(o, e) {
			return false
		}
	}
	return true
}

// redundantOf is the redundant shard segments among rels, segments whose
// names checkSegmentName accepted, reading the entries of those in a group
// with another shard segment through entries.
func redundantOf(rels []string, entries func(rel string) (map[string]json.RawMessage, error)) (map[string]bool, error) {
	groups := map[string][]string{}
	for _, rel := range rels {
		if isShardSegment(rel) {
			groups[summaryGroup(rel)] = append(groups[summaryGroup(rel)], rel)
		}
	}
	gone := map[string]bool{}
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		if len(groups[g]) < 2 {
			continue
		}
		segs := map[string]map[string]json.RawMessage{}
		for _, rel := range groups[g] {
			e, err := entries(rel)
			if err != nil {
				return nil, err
			}
			segs[rel] = e
		}
		maps.Copy(gone, redundantShards(segs))
	}
	return gone, nil
}

// checkedEntries is the entries of the shard segment rel, whose bytes are
// data, checked against its name.
func checkedEntries(rel string, data []byte) (map[string]json.RawMessage, error) {
	if err := checkSegmentBytes(rel, data); err != nil {
		return nil, err
	}
	return shardEntries(rel, data)
}

// dropRedundant has the next Save remove the segment rel, which the
// ledger does not hold, and write its group's summary again.
func (l *Ledger) dropRedundant(rel string) {
	s := l.sealer()
	s.remove[rel] = true
	s.dirty[summaryGroup(rel)] = true
}
