package heartbeat

import (
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// TestTheSameHashAtAnotherFileIsFetchedWhenTheFirstIsServedWrong: gamma
// lists one hash at two files; its host serves the first rewritten and
// the second as listed. A poll fetched the first row of a hash alone, so
// the second was never verified, and a dispute of the first stood
// unrefuted though gamma serves the bytes right (docs/protocol.md §7.4,
// conformance/dispute-refuted). Both are fetched now: the first rejected,
// the second recorded; two rows whose file is the same stay one fetch.
func TestTheSameHashAtAnotherFileIsFetchedWhenTheFirstIsServedWrong(t *testing.T) {
	body := "# Gamma's note\n\n## Work\n\nGamma measured it.\n"
	h := manifest.HashBytes([]byte(body))
	gamma := newFakePeer(t)
	m := manifest.Manifest{Agent: "gamma", Sequence: 3, Entries: []manifest.Entry{
		{Seq: 1, Hash: h, File: "traces/001-note.md", Type: "knowledge", Status: "pending"},
		{Seq: 2, Hash: h, File: "traces/001-note.md", Type: "knowledge", Status: "pending"},
		{Seq: 3, Hash: h, File: "traces/003-note-again.md", Type: "knowledge", Status: "pending"},
	}}
	gamma.serve("/g/MANIFEST.md", m.Format())
	gamma.serve("/g/traces/001-note.md", []byte(body+"rewritten by the host\n"))
	gamma.serve("/g/traces/003-note-again.md", []byte(body))
	dir := newNode(t, [][2]string{{"gamma", gamma.URL + "/g/"}}, "")

	sum := beat(t, dir, testNow)
	if sum.Verified != 1 || sum.Rejected != 1 || sum.Duplicates != 1 {
		t.Errorf("verified %d, rejected %d, duplicates %d; want 1, 1 and 1", sum.Verified, sum.Rejected, sum.Duplicates)
	}
	if got := gamma.hitsOf("/g/traces/001-note.md"); got != 1 {
		t.Errorf("the file two rows list was fetched %d times, want once", got)
	}
	tr := loadLedger(t, dir).Traces[h]
	if tr == nil || !tr.Verified || tr.Seq != 3 {
		t.Fatalf("the ledger's record of the hash is %+v; want gamma's seq 3, verified", tr)
	}
}

// TestTheSameHashAtTwoFilesServedRightIsRecordedOnce: both files verify;
// the first row's is the record, the second a duplicate.
func TestTheSameHashAtTwoFilesServedRightIsRecordedOnce(t *testing.T) {
	body := "# Gamma's note\n\n## Work\n\nGamma measured it.\n"
	h := manifest.HashBytes([]byte(body))
	gamma := newFakePeer(t)
	gamma.publishSeqs("/g/", 2, map[manifest.Seq][2]string{1: {"traces/001-note.md", body}, 2: {"traces/002-note.md", body}})
	dir := newNode(t, [][2]string{{"gamma", gamma.URL + "/g/"}}, "")

	sum := beat(t, dir, testNow)
	if sum.Verified != 1 || sum.Duplicates != 1 {
		t.Errorf("verified %d, duplicates %d; want 1 and 1", sum.Verified, sum.Duplicates)
	}
	if tr := loadLedger(t, dir).Traces[h]; tr == nil || tr.Seq != 1 {
		t.Errorf("the ledger's record of the hash is %+v; want gamma's seq 1", tr)
	}
}
