package heartbeat

import (
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// TestAnAuthorsOwnDisputeTakesItsTraceDownUnderUnknownRules: under a rule
// set this node does not implement (signal.UnknownRulesError) the SIGNAL
// report knows nobody, so aboutOf read every dispute as about nobody:
// gamma's dispute of its own trace (a self-withdrawal, docs/decisions.md,
// "Taking a peer's text down": "its author's own ... an agent may take its
// trace down this way too") took nothing down, and its text stayed on our
// site. Who published the dispute needs no SIGNAL (the URL it was read
// from), nor whom it names (its agent_url, else its name: signal.Names),
// so an author's own dispute naming itself counts under every rule set;
// its dispute of another agent's row claiming the hash, and anyone
// else's dispute, still take nothing down there.
func TestAnAuthorsOwnDisputeTakesItsTraceDownUnderUnknownRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		names func(gamma, mallory string) string // the agent line and agent_url line of the dispute
		want  string
	}{
		{"naming itself by its URL", func(gamma, _ string) string { return "agent: gamma\nagent_url: " + gamma + "\n" }, ledger.Disputed},
		{"naming itself by name only", func(string, string) string { return "agent: Gamma\n" }, ledger.Disputed},
		{"naming another agent that claims the hash", func(_, mallory string) string { return "agent: mallory\nagent_url: " + mallory + "\n" }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newFakePeer(t)
			gamma, mallory := p.URL+"/gamma/", p.URL+"/mallory/"
			h := manifest.HashBytes([]byte(plainTrace))
			d := strings.NewReplacer("agent: gamma\nagent_url: https://gamma.example/\n", tc.names(gamma, mallory),
				"reporter: beta\nreporter_url: https://beta.example/", "reporter: gamma\nreporter_url: "+gamma,
				"sha256:"+zeros, string(h)).Replace(peersDispute)
			p.publishRows("/gamma/", [][4]string{
				{"traces/x.md", plainTrace, "knowledge", "pending"},
				{"disputes/dispute-" + h.Hex(12) + ".md", d, "dispute", "published"},
			})
			dir := newNode(t, [][2]string{{"gamma", gamma}}, "")
			write(t, dir, node.FoundersFile, "rules: mesh-2099-1\ngamma | "+gamma+"\n")
			beat(t, dir, testNow)

			l := loadLedger(t, dir)
			if l.DisputesBy(gamma) != 1 {
				t.Fatalf("setup: %d disputes of gamma recorded, want 1", l.DisputesBy(gamma))
			}
			if got := l.Traces[h].TakenDown; got != tc.want {
				t.Errorf("taken down %q, want %q", got, tc.want)
			}
			if kept := loadCopies(t, dir).ByHash[h] != nil; kept != (tc.want == "") {
				t.Errorf("copy kept %v, want %v", kept, tc.want == "")
			}
		})
	}
}
