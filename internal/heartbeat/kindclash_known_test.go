package heartbeat

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestAKnownValidationOrDisputeListedAsAnotherAgentsTraceIsNotItsTrace:
// beta's validation (or dispute) is read, and a heartbeat later mallory
// lists the same bytes under traces/ as a pending trace of its own.
// recordFile found no trace of that hash in the ledger (a validation is
// not one) and recorded the bytes as mallory's trace and queued them: we
// would score beta's work as mallory's, and under every rule set a pass
// would credit mallory with it. docs/protocol.md §6.4: "Only a trace is a
// copy of a trace: a validation or dispute is recorded as its publisher's
// whatever else lists its bytes as a trace." So bytes the ledger holds as
// another agent's validation or dispute are neither recorded as the
// lister's trace (nor a copy) nor queued; the validator's record stays
// as it was.
func TestAKnownValidationOrDisputeListedAsAnotherAgentsTraceIsNotItsTrace(t *testing.T) {
	for _, tc := range betasVotes() {
		t.Run(tc.name, func(t *testing.T) {
			p := newFakePeer(t)
			beta, mallory := p.URL+"/beta/", p.URL+"/mallory/"
			body := tc.body(p.URL)
			copied := manifest.HashBytes([]byte(body))
			p.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/x.md", gammaTrace}})
			p.publishRows("/beta/", [][4]string{{tc.file, body, tc.typ, "published"}})
			p.serve("/mallory/MANIFEST.md", []byte("# MANIFEST\n\nagent: mallory\nsequence: 0\n"))
			dir := newNode(t, [][2]string{{"gamma", p.URL + "/gamma/"}, {"beta", beta}, {"mallory", mallory}}, "")
			beat(t, dir, testNow)
			before := loadLedger(t, dir)
			if len(before.ValidationsBy(beta))+before.DisputesBy(beta) != 1 {
				t.Fatalf("setup: beta's %s is not recorded", tc.name)
			}

			p.publishRows("/mallory/", [][4]string{{"traces/001-mine.md", body, "knowledge", "pending"}})
			beat(t, dir, testNow.Add(cursorStep))
			if p.hitsOf("/mallory/traces/001-mine.md") == 0 {
				t.Fatal("setup: mallory's row was never fetched")
			}
			l := loadLedger(t, dir)
			if tr := l.Traces[copied]; tr != nil {
				t.Errorf("beta's %s is recorded as %s's trace", tc.name, tr.AgentURL)
			}
			if len(l.CopiesBy(mallory)) != 0 {
				t.Errorf("beta's %s is recorded as a copy of mallory's", tc.name)
			}
			if len(l.ValidationsBy(beta))+l.DisputesBy(beta) != 1 {
				t.Errorf("beta's %s is no longer recorded as beta's", tc.name)
			}
			items, err := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile))).List()
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				if it.Hash == copied {
					t.Errorf("beta's %s is queued for scoring as %s's trace (%s)", tc.name, it.From, it.Status)
				}
			}
		})
	}
}

// TestAValidationOrDisputeReadAfterItsCopyUndoesTheCopysTrace: the same
// bytes, the other way round: mallory lists beta's validation (or
// dispute) under traces/ before beta lists it, so the node records it as
// mallory's trace and queues it, knowing nothing else of those bytes.
// Once beta's file is read, the ledger holds what it would hold had beta
// been read first (the test above): mallory's record of them as a trace
// is dropped, and so is its item still waiting in the queue. On
// a4e0966d both stayed: beta's work waited to be scored as mallory's.
func TestAValidationOrDisputeReadAfterItsCopyUndoesTheCopysTrace(t *testing.T) {
	for _, tc := range betasVotes() {
		t.Run(tc.name, func(t *testing.T) {
			p := newFakePeer(t)
			beta, mallory := p.URL+"/beta/", p.URL+"/mallory/"
			body := tc.body(p.URL)
			copied := manifest.HashBytes([]byte(body))
			p.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/x.md", gammaTrace}})
			p.publishRows("/mallory/", [][4]string{{"traces/001-mine.md", body, "knowledge", "pending"}})
			p.serve("/beta/MANIFEST.md", []byte("# MANIFEST\n\nagent: beta\nsequence: 0\n"))
			dir := newNode(t, [][2]string{{"gamma", p.URL + "/gamma/"}, {"beta", beta}, {"mallory", mallory}}, "")
			beat(t, dir, testNow) // no standing: mallory's "trace" waits in the queue
			q := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile)))
			if tr := loadLedger(t, dir).Traces[copied]; tr == nil || tr.AgentURL != mallory {
				t.Fatalf("setup: the bytes are recorded as %+v, want mallory's trace", tr)
			}

			p.publishRows("/beta/", [][4]string{{tc.file, body, tc.typ, "published"}})
			beat(t, dir, testNow.Add(cursorStep))
			l := loadLedger(t, dir)
			if len(l.ValidationsBy(beta))+l.DisputesBy(beta) != 1 {
				t.Fatalf("setup: beta's %s is not recorded", tc.name)
			}
			if tr := l.Traces[copied]; tr != nil {
				t.Errorf("beta's %s is still recorded as %s's trace", tc.name, tr.AgentURL)
			}
			items, err := q.List()
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				if it.Hash == copied {
					t.Errorf("beta's %s still waits in the queue as %s's trace (%s)", tc.name, it.From, it.Status)
				}
			}
		})
	}
}

// TestATraceListedAsAValidationByAnotherAgentStaysATrace: the rule above
// must not hide a real trace. A stranger lists under validations/ the
// bytes of gamma's trace: a plain one (which does not parse as a
// validation) or one of type validation (which does). Before or after
// gamma is read, the stranger's file is a validation that names no trace
// hash, which makes nobody's trace "not a trace": gamma's stays gamma's,
// queued.
func TestATraceListedAsAValidationByAnotherAgentStaysATrace(t *testing.T) {
	for _, body := range []string{plainTrace, validationTrace("7")} {
		for _, strangerFirst := range []bool{true, false} {
			name := map[bool]string{true: "stranger read first", false: "gamma read first"}[strangerFirst]
			if body != plainTrace {
				name += ", a validation trace"
			}
			t.Run(name, func(t *testing.T) {
				h := manifest.HashBytes([]byte(body))
				p := newFakePeer(t)
				gamma, stranger := p.URL+"/gamma/", p.URL+"/stranger/"
				empty := []byte("# MANIFEST\n\nagent: peer\nsequence: 0\n")
				p.serve("/gamma/MANIFEST.md", empty)
				p.serve("/stranger/MANIFEST.md", empty)
				dir := newNode(t, [][2]string{{"gamma", gamma}, {"stranger", stranger}}, "")
				first, second := func() {
					p.publishRows("/stranger/", [][4]string{{"validations/" + validation.FileName(h), body, "validation", "published"}})
				}, func() {
					p.publishRows("/gamma/", [][4]string{{"traces/x.md", body, "knowledge", "pending"}})
				}
				if !strangerFirst {
					first, second = second, first
				}
				first()
				beat(t, dir, testNow)
				second()
				beat(t, dir, testNow.Add(cursorStep))

				if tr := loadLedger(t, dir).Traces[h]; tr == nil || tr.AgentURL != gamma {
					t.Errorf("gamma's trace is recorded as %+v, want gamma's", tr)
				}
				items, err := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile))).List()
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(items, func(it queue.Item) bool { return it.Hash == h && it.FromURL == gamma }) {
					t.Errorf("gamma's trace is not queued from gamma: %+v", items)
				}
			})
		}
	}
}
