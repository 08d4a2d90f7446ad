package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/statefile"
)

// groupSegments is the segments on disk of the group of the summary
// file fp in the ledger at p, read whole, as the summary writer takes
// them.
func groupSegments(t *testing.T, p, fp string) []sealedSegment {
	t.Helper()
	var segs []sealedSegment
	for _, f := range listSegments(t, p) {
		if summaryGroup(f.Rel)+".summary" != filepath.Base(fp) {
			continue
		}
		data, err := statefile.ReadSegment(p, f.Rel)
		if err != nil {
			t.Fatal(err)
		}
		peers, err := decodeSegment(f.Rel, data)
		if err != nil {
			t.Fatal(err)
		}
		segs = append(segs, sealedSegment{rel: f.Rel, size: f.Size, peers: peers})
	}
	if len(segs) == 0 {
		t.Fatalf("no segment of %s", fp)
	}
	return segs
}

// lyingSummary saves everyField sealed at a new path and writes the
// summary of jolt's group with a header that is whole but a trace's seq
// that is not its segment's, as a forged or damaged-then-rehashed
// summary would; it returns the ledger's path and the summary's file.
func lyingSummary(t *testing.T) (p, fp string) {
	t.Helper()
	p, _ = sealedEveryField(t)
	fp = joltSummary(t, p)
	segs := groupSegments(t, p, fp)
	lied := false
	for _, s := range segs {
		for _, seg := range s.peers {
			if tr := seg.Traces["sha256:bb"]; tr != nil {
				tr.Seq, lied = 52, true
			}
		}
	}
	if !lied {
		t.Fatal("jolt's group holds no sha256:bb to lie about")
	}
	lie, err := encodeSummary(segs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fp, lie, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, fp
}

// segmentBytesOn is every segment of the ledger at p, by rel.
func segmentBytesOn(t *testing.T, p string) map[string][]byte {
	t.Helper()
	segs, err := statefile.ReadSegments(p)
	if err != nil || len(segs) == 0 {
		t.Fatalf("segments %d: %v", len(segs), err)
	}
	return segs
}

// peerFilesOn is the peers' files of the ledger at p, by name.
func peerFilesOn(t *testing.T, p string) map[string][]byte {
	t.Helper()
	_, files, err := statefile.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestSummaryThatDisagreesWithItsSegmentFailsTheSave: a summary whose
// header is whole but whose records are not its segment's (written by
// hand) is found when a change reads the segment, and the save that
// would write the change writes nothing of the peers' files or segments.
func TestSummaryThatDisagreesWithItsSegmentFailsTheSave(t *testing.T) {
	p, _ := lyingSummary(t)
	segs := segmentBytesOn(t, p)
	l, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	before := peerFilesOn(t, p)
	l.TakeDown("sha256:bb", "")
	if _, err := l.Save(p); !errors.Is(err, errStaleSummary) {
		t.Fatalf("save: %v, want the summary found stale", err)
	}
	if after := peerFilesOn(t, p); !reflect.DeepEqual(after, before) {
		t.Error("the failed save wrote the peers' files")
	}
	if after := segmentBytesOn(t, p); !reflect.DeepEqual(after, segs) {
		t.Error("the failed save changed the segments")
	}
}
