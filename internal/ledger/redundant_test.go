package ledger

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/meshnode/meshnode/internal/statefile"
)

// TestSegmentLeftByAStoppedUnsealIsRemovedByTheNextSave: a Forget of a
// peer that shares a shard segment, stopped after the segment written
// again without it but before the old one's removal, leaves both; the
// next Save, of a ledger Load or LoadCompact read (its summaries stale,
// or of both segments), removes the redundant one, so each peer is in one
// segment of its quarter, and every record loads as before. A second
// Save changes nothing more.
func TestSegmentLeftByAStoppedUnsealIsRemovedByTheNextSave(t *testing.T) {
	for _, tc := range []struct {
		name           string
		load           func(string) (*Ledger, error)
		summarizedBoth bool
	}{
		{"whole", Load, false},
		{"summaries stale", LoadCompact, false},
		{"summaries of both", LoadCompact, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "ledger.json")
			l, urls := crowd(40)
			a, _ := sharers(t, urls)
			want := whole(t, l)
			savedAt(t, l, later, p)
			got, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			got.Forget(a)
			if _, err := got.saveSegments(p); err != nil {
				t.Fatal(err)
			}
			if tc.summarizedBoth {
				summarizeAll(t, p)
			}
			if n := len(listSegments(t, p)); n < 2 {
				t.Fatalf("%d segments after the stopped Forget", n)
			}
			for i := range 2 {
				again, err := tc.load(p)
				if err != nil {
					t.Fatal(err)
				}
				compacted(t, again, later.AddDate(0, 0, 1))
				if _, err := again.Save(p); err != nil {
					t.Fatal(err)
				}
				for dir, rels := range holders(t, p) {
					if len(rels) > 1 {
						t.Errorf("after Save %d: peer %s in %d segments of 2026-Q1: %v", i+1, dir, len(rels), rels)
					}
				}
			}
			loads(t, p, want)
		})
	}
}

// holders is the shard segments of the ledger at p that hold each peer,
// by its directory name.
func holders(t *testing.T, p string) map[string][]string {
	t.Helper()
	segs, err := statefile.ReadSegments(p)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, rel := range slices.Sorted(maps.Keys(segs)) {
		entries, err := shardEntries(rel, segs[rel])
		if err != nil {
			t.Fatal(err)
		}
		for dir := range entries {
			out[dir] = append(out[dir], rel)
		}
	}
	return out
}

// summarizeAll writes the summary of every group of the ledger at p
// from the segments on disk, as a node that did not know redundant
// segments did after a stopped unseal.
func summarizeAll(t *testing.T, p string) {
	t.Helper()
	segs, err := statefile.ReadSegments(p)
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string][]sealedSegment{}
	for rel, data := range segs {
		peers, err := decodeSegment(rel, data)
		if err != nil {
			t.Fatal(err)
		}
		g := summaryGroup(rel)
		groups[g] = append(groups[g], sealedSegment{rel: rel, size: int64(len(data)), peers: fullParts(peers)})
	}
	for g, ss := range groups {
		if _, err := writeSummary(p, g, ss); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRedundantShardIsOneAnotherHoldsWhole: a shard segment is redundant
// only when one other segment that stays holds every entry of it, byte
// for byte; of two alike, one stays.
func TestRedundantShardIsOneAnotherHoldsWhole(t *testing.T) {
	x, y, z := json.RawMessage(`{"x":1}`), json.RawMessage(`{"y":1}`), json.RawMessage(`{"z":1}`)
	for _, tc := range []struct {
		name string
		segs map[string]map[string]json.RawMessage
		want []string
	}{
		{"the new one, its neighbours in the old", map[string]map[string]json.RawMessage{
			"old": {"a": x, "b": y, "c": z}, "new": {"b": y, "c": z}}, []string{"new"}},
		{"two alike: the first goes", map[string]map[string]json.RawMessage{
			"s1": {"a": x, "b": y}, "s2": {"a": x, "b": y}}, []string{"s1"}},
		{"an entry with other bytes stays", map[string]map[string]json.RawMessage{
			"old": {"a": x, "b": y}, "new": {"b": z}}, nil},
		{"entries spread over two others stay", map[string]map[string]json.RawMessage{
			"s1": {"a": x, "b": y}, "s2": {"a": x, "c": z}, "s3": {"b": y, "c": z}}, nil},
		{"a chain keeps the largest", map[string]map[string]json.RawMessage{
			"s1": {"a": x}, "s2": {"a": x, "b": y}, "s3": {"a": x, "b": y, "c": z}}, []string{"s1", "s2"}},
		{"disjoint parts stay", map[string]map[string]json.RawMessage{
			"p0": {"a": x}, "p1": {"b": y}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gone := redundantShards(tc.segs)
			if got := slices.Sorted(maps.Keys(gone)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("redundant %v, want %v", got, tc.want)
			}
			for rel := range gone {
				for dir, e := range tc.segs[rel] {
					kept := false
					for other, entries := range tc.segs {
						kept = kept || (!gone[other] && string(entries[dir]) == string(e))
					}
					if !kept {
						t.Errorf("%s's entry %s is in no segment that stays", rel, dir)
					}
				}
			}
		})
	}
}
