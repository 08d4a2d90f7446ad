package heartbeat

import (
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
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

// TestEachRowIsReadAsWhatItPublishes: a peer's dispute, or a key
// statement of its log, is neither a trace nor queued for scoring; its validation traces (type validation under
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
		{"log/key/rotation-7", "meshnode log key rotation\norigin beta.example\n", "key", "published"},
	})
	dir := newNode(t, [][2]string{{"beta", p.URL + "/beta/"}}, "")
	sum := beat(t, dir, testNow)
	l := loadLedger(t, dir)
	url := p.URL + "/beta/"
	if got := len(l.TracesBy(url)); got != 4 {
		t.Errorf("ledger holds %d traces of beta, want 4 (one work trace, three validation traces)", got)
	}
	for _, tr := range l.TracesBy(url) {
		if tr.File == "disputes/dispute-000000000000.md" || tr.File == "validations/val-111111111111.md" || tr.File == "log/key/rotation-7" {
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

// TestRecordsOfTheOlderReadingAreReadAgain: a node upgraded from one that
// took a peer's validation traces for validations and its dispute for a
// trace reads the peer again, once, and then holds what every node holds,
// first-seen times kept.
func TestRecordsOfTheOlderReadingAreReadAgain(t *testing.T) {
	p := newFakePeer(t)
	rows := [][4]string{
		{"traces/001-work.md", "# Work\n\n## Work\n\nDone.\n", "knowledge", "pending"},
		{"disputes/dispute-000000000000.md", peersDispute, "dispute", "published"},
		{"traces/002-trace.md", validationTrace("11"), "validation", "submitted"},
		{"traces/003-trace.md", validationTrace("12"), "validation", "submitted"},
	}
	p.publishRows("/beta/", rows)
	dir := newNode(t, [][2]string{{"beta", p.URL + "/beta/"}}, "")
	beat(t, dir, testNow)
	url := p.URL + "/beta/"
	// What the older reading left in the ledger: the dispute as a trace,
	// the two validation traces as one validation of no trace.
	l := loadLedger(t, dir)
	work := manifest.HashBytes([]byte(rows[0][1]))
	first := l.Traces[work].FirstSeen
	for _, i := range []int{2, 3} {
		delete(l.Traces, manifest.HashBytes([]byte(rows[i][1])))
	}
	l.AddTrace(&ledger.Trace{Agent: "beta", AgentURL: url, Seq: 2, Hash: manifest.HashBytes([]byte(peersDispute)),
		File: "disputes/dispute-000000000000.md", Type: "dispute", Verified: true, FirstSeen: testNow})
	l.Validations = map[string]*ledger.Validation{url + " ": {Validator: "beta", ValidatorURL: url, Result: "pass", Total: 30,
		SourceURL: url + "traces/003-trace.md", SourceHash: manifest.HashBytes([]byte(rows[3][1]))}}
	if _, err := l.Save(filepath.Join(dir, node.LedgerFile)); err != nil {
		t.Fatal(err)
	}

	beat(t, dir, testNow.Add(cursorStep))
	l = loadLedger(t, dir)
	if n, v := len(l.TracesBy(url)), len(l.ValidationsBy(url)); n != 3 || v != 0 {
		t.Errorf("after the re-read: %d traces and %d validations, want 3 and 0", n, v)
	}
	if got := l.Traces[work].FirstSeen; !got.Equal(first) {
		t.Errorf("first seen %v after the re-read, want %v kept", got, first)
	}
	before := p.hitsOf("/beta/traces/001-work.md")
	beat(t, dir, testNow.Add(2*cursorStep))
	if p.hitsOf("/beta/traces/001-work.md") != before {
		t.Error("the peer was read again a second time")
	}
}
