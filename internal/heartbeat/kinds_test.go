package heartbeat

import (
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// publishRows serves a manifest under base with one row per file, in
// order as seqs 1, 2, …, each with the given type and status, and the
// files themselves.
func (p *fakePeer) publishRows(base string, rows [][4]string) {
	m := manifest.Manifest{Agent: "peer", Sequence: manifest.Seq(len(rows))}
	for i, r := range rows {
		file, body, typ, status := r[0], r[1], r[2], r[3]
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(i + 1), Hash: manifest.HashBytes([]byte(body)), File: file, Type: typ, Status: manifest.Status(status)})
		p.serve(base+file, []byte(body))
	}
	p.serve(base+"MANIFEST.md", m.Format())
}

const peersDispute = "# MANIFEST-DISPUTE\n\nreporter: beta\nreporter_url: https://beta.example/\nagent: gamma\nagent_url: https://gamma.example/\n" +
	"file_url: https://gamma.example/traces/x.md\nseq: 3\nclaimed_hash: sha256:" + zeros + "\nserved_hash: sha256:" + ones + "\nobserved_at: 2026-03-14T00:00:00Z\n"

const (
	zeros = "0000000000000000000000000000000000000000000000000000000000000000"
	ones  = "1111111111111111111111111111111111111111111111111111111111111111"
)

// validationTrace is a trace of type validation as the real mesh's agents
// write them: it names what it judges as agent/seq, never by hash.
func validationTrace(n string) string {
	return "# Validating rex/0" + n + "\n\n**Type:** validation\n**Cites:** rex/0" + n + "\n\n## Work\n\nVerdict: VALID. Checked " + n + ".\n"
}

// TestEachRowIsReadAsWhatItPublishes: a peer's dispute is neither a trace
// nor queued for scoring; its validation traces (type validation under
// traces/, naming no hash) are each a trace; a file under validations/
// that does not parse is a validation that counts for nothing, never a
// trace (docs/decisions.md, "What a row is").
func TestEachRowIsReadAsWhatItPublishes(t *testing.T) {
	p := newFakePeer(t)
	p.publishRows("/beta/", [][4]string{
		{"traces/001-work.md", "# Work\n\n## Work\n\nDone.\n", "knowledge", "pending"},
		{"disputes/dispute-000000000000.md", peersDispute, "dispute", "published"},
		{"traces/002-trace.md", validationTrace("11"), "validation", "submitted"},
		{"traces/003-trace.md", validationTrace("12"), "validation", "submitted"},
		{"traces/004-trace.md", validationTrace("13"), "validation", "submitted"},
		{"validations/val-111111111111.md", "not a validation at all\n", "validation", "published"},
	})
	dir := newNode(t, [][2]string{{"beta", p.URL + "/beta/"}}, "")
	sum := beat(t, dir, testNow)
	l := loadLedger(t, dir)
	url := p.URL + "/beta/"
	if got := len(l.TracesBy(url)); got != 4 {
		t.Errorf("ledger holds %d traces of beta, want 4 (one work trace, three validation traces)", got)
	}
	for _, tr := range l.TracesBy(url) {
		if tr.File == "disputes/dispute-000000000000.md" || tr.File == "validations/val-111111111111.md" {
			t.Errorf("%s recorded as a trace", tr.File)
		}
	}
	for _, tr := range l.TracesBy(url) {
		if tr.Type != "validation" {
			continue
		}
		want := ledger.Verdict{Agent: "rex", Seq: int(tr.Seq) + 8, Result: "valid"}
		if len(tr.Verdicts) != 1 || tr.Verdicts[0] != want {
			t.Errorf("%s: verdicts %+v, want %+v", tr.File, tr.Verdicts, want)
		}
	}
	if got := len(l.ValidationsBy(url)); got != 1 {
		t.Errorf("ledger holds %d validations of beta, want the one file under validations/", got)
	}
	if sum.Queued != 4 || sum.NewTraces != 4 || sum.NewValidations != 1 {
		t.Errorf("queued %d, new traces %d, new validations %d; want 4, 4 and 1", sum.Queued, sum.NewTraces, sum.NewValidations)
	}
}
