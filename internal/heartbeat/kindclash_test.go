package heartbeat

import (
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/validation"
)

// gammaTrace is gamma's trace, which beta's validation and dispute are of.
const gammaTrace = "# Gamma's work\n\n## Work\n\nMeasured twice.\n"

// betasVote is beta's validation or dispute of gammaTrace as beta lists
// it: its kind (name, and the type of its MANIFEST.md row), its file, its
// body with the peers served at url, and whether a ledger holds it as
// beta's.
type betasVote struct {
	name, file, typ string
	body            func(url string) string
	recorded        func(l *ledger.Ledger, beta string) bool
}

// betasVotes are the validation and the dispute: the tests of a vote
// whose bytes another agent lists as a trace run on both.
func betasVotes() []betasVote {
	h := manifest.HashBytes([]byte(gammaTrace))
	return []betasVote{
		{
			name: "validation", file: "validations/" + validation.FileName(h), typ: "validation",
			body: func(url string) string {
				v := validation.Validation{Validator: "beta", ValidatorURL: url + "/beta/", TraceURL: url + "/gamma/traces/x.md", TraceHash: h,
					ValidatedAt: testNow.Add(-time.Hour), Result: validation.ResultPass, Total: 20, HasScores: true,
					Scores: validation.Scores{4, 4, 4, 4, 2, 2}, Notes: "Sound."}
				return string(v.Format())
			},
			recorded: func(l *ledger.Ledger, beta string) bool { return len(l.ValidationsBy(beta)) == 1 },
		},
		{
			name: "dispute", file: "disputes/dispute-" + h.Hex(12) + ".md", typ: "dispute",
			body: func(url string) string {
				return strings.NewReplacer("https://gamma.example/", url+"/gamma/", "sha256:"+zeros, string(h)).Replace(peersDispute)
			},
			recorded: func(l *ledger.Ledger, beta string) bool { return l.DisputesBy(beta) == 1 },
		},
	}
}

// TestAValidationOrDisputeIsRecordedWhateverListsItsBytesAsATrace: a peer
// lists, under traces/, the bytes of beta's validation (or dispute) one
// heartbeat before beta lists them, as the mirror of issue 20 lists fresh
// files. recordFile found a trace of that hash from another agent in the
// ledger and returned before it looked at the kind: beta's validation (or
// dispute) was marked seen from beta and never recorded, so it was never
// read again either. The "another agent's trace" branch now applies to a
// file of kind trace only.
//
// Attack: copy a validator's fresh file and list it under traces/ before
// the node reads the validator (a faster poll, or a name that sorts first
// in the same heartbeat). Harm: beta's vote is not in the ledger, so it
// does not count in SIGNAL, the assignment or the trace's status as this
// node computes them (a dispute: its evidence under mesh-2026-3). The rule
// (docs/security.md, the mirror row; docs/decisions.md, "Copies"): "a file
// is recorded per publisher and hash, so the author's listing is read and
// its vote counts under every rule set".
func TestAValidationOrDisputeIsRecordedWhateverListsItsBytesAsATrace(t *testing.T) {
	for _, tc := range betasVotes() {
		t.Run(tc.name, func(t *testing.T) {
			p := newFakePeer(t)
			beta := p.URL + "/beta/"
			p.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/x.md", gammaTrace}})
			body := tc.body(p.URL)
			p.publishRows("/mallory/", [][4]string{{"traces/001-copy.md", body, "knowledge", "pending"}})
			p.serve("/beta/MANIFEST.md", []byte("# MANIFEST\n\nagent: beta\nsequence: 0\n"))
			dir := newNode(t, [][2]string{{"gamma", p.URL + "/gamma/"}, {"mallory", p.URL + "/mallory/"}, {"beta", beta}}, "")
			beat(t, dir, testNow)

			// Beta lists its own file a heartbeat later.
			p.publishRows("/beta/", [][4]string{{tc.file, body, tc.typ, "published"}})
			beat(t, dir, testNow.Add(cursorStep))
			beat(t, dir, testNow.Add(2*cursorStep))
			if got := p.hitsOf("/beta/" + tc.file); got == 0 {
				t.Fatalf("setup: beta's %s was never fetched", tc.name)
			}
			if l := loadLedger(t, dir); !tc.recorded(l, beta) {
				t.Errorf("beta's %s is not in the ledger: a copy of its bytes listed as mallory's trace hid it (copies of it: %d)",
					tc.name, len(l.Copies))
			}
		})
	}
}
