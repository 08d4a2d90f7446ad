package check

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestOnlyItsAuthorsMismatchBarsAValidationOfAVerifiedTrace: a peer
// lists a row whose sha256 is cyd's verified trace hash and serves other
// bytes; the heartbeat records the rejection under that peer. A mismatch
// bars validating a trace whose bytes verified only when it is of a file
// of the trace's author (ledger.Rejection.Against): the stranger's does
// not, cyd's own does.
//
// Attack: one manifest row naming a public hash. Harm, before: the node's
// person could not validate cyd's trace through a pull request (the gate
// stayed red), because target matched any rejection by claimed hash
// alone, whoever it was about. The rule (docs/cli/check.md): a
// validation's trace hash is "in mesh-state/ledger/, verified, not
// rejected as a mismatch" of its author's; cyd's file verified, and the
// mismatch was mallory's file, not cyd's.
func TestOnlyItsAuthorsMismatchBarsAValidationOfAVerifiedTrace(t *testing.T) {
	for _, tc := range []struct {
		name, agent, agentURL string
		barred                bool
	}{
		{"a stranger's", "mallory", "https://mallory.example/", false},
		{"its author's", "cyd", "https://cyd.example/", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := cleanNode(t)
			path := filepath.Join(dir, filepath.FromSlash(node.LedgerFile))
			l, err := ledger.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if tr := l.Traces[cydTrace]; tr == nil || !tr.Verified || tr.AgentURL != "https://cyd.example/" {
				t.Fatalf("setup: cyd's trace is %+v, want verified, cyd's", tr)
			}
			l.AddRejection(tc.agentURL+"traces/claim.md", &ledger.Rejection{
				Agent: tc.agent, AgentURL: tc.agentURL, Seq: 1, ClaimedHash: cydTrace, ServedHash: bobTrace, At: t0,
			})
			if _, err := l.Save(path); err != nil {
				t.Fatal(err)
			}
			f := "validations/" + validation.FileName(cydTrace)
			write(t, dir, f, validationFile(cydTrace, cydTraceURL))
			got := lines(Check(options(dir, f)))
			if tc.barred {
				want := f + ":6: trace_hash " + string(cydTrace) + " was rejected: the bytes served did not match it; never validate a trace whose hash did not verify"
				if len(got) != 1 || got[0] != want {
					t.Errorf("a validation of a trace its author served other bytes for:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
				}
			} else if len(got) != 0 {
				t.Errorf("a validation of cyd's verified trace is refused after a stranger's mismatch naming its hash:\n%s", strings.Join(got, "\n"))
			}
		})
	}
}
