package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

// TestSummaryThatDisagreesWithItsSegmentFailsOneSaveOnly: the save that
// finds a summary lying removes it, so the next heartbeat reads its
// group's segments whole, takes no record from the lie, saves the same
// change and writes the summary again as the writer gives it of the
// segments, which no step rewrites. Kept, the lie failed every save with
// news after it until a person removed the file.
func TestSummaryThatDisagreesWithItsSegmentFailsOneSaveOnly(t *testing.T) {
	p, fp := lyingSummary(t)
	segs := segmentBytesOn(t, p)
	l, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	l.TakeDown("sha256:bb", "")
	changed, err := l.Save(p)
	if !errors.Is(err, errStaleSummary) || !strings.Contains(err.Error(), fp) || !strings.Contains(err.Error(), "removed") {
		t.Fatalf("save: %v, want the summary %s found stale and said removed", err, fp)
	}
	if _, serr := os.Stat(fp); !errors.Is(serr, os.ErrNotExist) || !changed {
		t.Fatalf("after the failed save (changed=%v) the lying summary is still there: %v", changed, serr)
	}

	full, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	again, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := wholeIn(full, groupSegments(t, p, fp)); !sameRecords(again, want) {
		t.Errorf("loaded after the failed save:\n%v\nwant, the group's records whole:\n%v", whole(t, again), whole(t, want))
	}
	again.TakeDown("sha256:bb", "")
	if changed, err := again.Save(p); err != nil || !changed {
		t.Fatalf("the same change saved again: changed=%v err=%v", changed, err)
	}
	fresh, err := encodeSummary(groupSegments(t, p, fp))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(fp); err != nil || string(got) != string(fresh) {
		t.Errorf("summary written again as\n%s (%v)\nwant\n%s", got, err, fresh)
	}
	if after := segmentBytesOn(t, p); !reflect.DeepEqual(after, segs) {
		t.Error("a segment was written because its summary lied")
	}

	quiet, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(quiet.seal.dirty) != 0 || quiet.Traces["sha256:bb"].TakenDown != "" {
		t.Errorf("the next load: groups stale %v, take-down %q", quiet.seal.dirty, quiet.Traces["sha256:bb"].TakenDown)
	}
	if changed, err := quiet.Save(p); err != nil || changed {
		t.Errorf("a heartbeat with no news after: changed=%v err=%v", changed, err)
	}
}

// wholeIn is summarizedCopy of full, a ledger Load read, but for the
// traces and copies of the peers segs hold, which are whole: what
// LoadCompact gives when the summary of segs is missing.
func wholeIn(full *Ledger, segs []sealedSegment) *Ledger {
	want := summarizedCopy(full)
	for _, s := range segs {
		for _, seg := range s.peers {
			for k := range seg.Traces {
				want.Traces[k] = full.Traces[k]
			}
			for k := range seg.Copies {
				want.Copies[k] = full.Copies[k]
			}
		}
	}
	return want
}

// TestLyingSummaryThatCannotBeRemovedStillFailsTheSave: when the lying
// summary cannot be removed (here a directory holding a file stands in
// its place, which not even root removes), the save still fails with the
// disagreement, says the summary is left, and writes or removes nothing
// else.
func TestLyingSummaryThatCannotBeRemovedStillFailsTheSave(t *testing.T) {
	p, fp := lyingSummary(t)
	segs := segmentBytesOn(t, p)
	l, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	before := peerFilesOn(t, p)
	if err := os.Remove(fp); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(fp, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	l.TakeDown("sha256:bb", "")
	_, err = l.Save(p)
	if !errors.Is(err, errStaleSummary) || !strings.Contains(err.Error(), "could not be removed") {
		t.Fatalf("save: %v, want the summary found stale and said left", err)
	}
	if _, serr := os.Stat(filepath.Join(fp, "x")); serr != nil {
		t.Errorf("what stood at the summary's place is gone: %v", serr)
	}
	if after := peerFilesOn(t, p); !reflect.DeepEqual(after, before) {
		t.Error("the failed save wrote the peers' files")
	}
	if after := segmentBytesOn(t, p); !reflect.DeepEqual(after, segs) {
		t.Error("the failed save changed the segments")
	}
	got, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !sameRecords(got, want) {
		t.Errorf("records after the failed save:\n%v\nwant:\n%v", whole(t, got), whole(t, want))
	}
}
