package statefile

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestListSegmentsOfListsOneDirectoryAsListSegmentsDoes: the segments of
// one directory are those ListSegments lists under it; a directory that
// is not there, or a file in its place, holds none, as ListSegments finds
// none there; a name that is no directory's is refused.
func TestListSegmentsOfListsOneDirectoryAsListSegmentsDoes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	for _, rel := range []string{"shard-3/2026-Q1-0-00000000.json", "shard-3/2026-Q2-0-11111111.json", "shard-4/2026-Q1-0-22222222.json"} {
		if err := CreateSegment(p, rel, []byte(rel)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(SegmentsDir(p), "shard-5"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := ListSegments(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ListSegmentsOf(p, "shard-3")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, all[:2]) {
		t.Errorf("ListSegmentsOf(shard-3) = %v; want %v", got, all[:2])
	}
	for _, dir := range []string{"shard-6", "shard-5"} {
		if got, err := ListSegmentsOf(p, dir); err != nil || got != nil {
			t.Errorf("ListSegmentsOf(%s) = %v, %v; want none", dir, got, err)
		}
	}
	for _, dir := range []string{"", "..", "a/b", ".hidden"} {
		if _, err := ListSegmentsOf(p, dir); err == nil {
			t.Errorf("ListSegmentsOf(%q) took it as a directory's name", dir)
		}
	}
}
