package site

import (
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// TestAPublishedDisputeHidesOnlyTheRejectionOfItsOwnClaim: the site lists
// the disputes the node published and the ledger's rejections it did not
// publish a dispute for. Two agents' rows may claim one hash (a stranger
// copies gamma's hash into a row of its own, or the other way round), and
// the node publishes at most 100 disputes about one agent: a rejection of
// gamma's file past that bound has no dispute of its own, while the
// stranger's row claiming the same hash has one. loadDisputes hid every
// rejection whose claimed hash any published dispute claimed, so gamma's
// mismatch vanished from the list. A dispute is the same claim as a
// rejection only when it claims the same hash about the same agent
// (ledger.Rejection.Against; signal.Names), and it is ours: a file in
// disputes/ naming another reporter (edited by hand) is not our claim.
func TestAPublishedDisputeHidesOnlyTheRejectionOfItsOwnClaim(t *testing.T) {
	h := manifest.HashBytes([]byte("gamma's trace"))
	served := manifest.HashBytes([]byte("other bytes"))
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const stranger, gamma = "https://stranger.example/", "https://gamma.example/"
	published := dispute.Dispute{Reporter: "fern", ReporterURL: "https://fern.example.org/", Agent: "stranger", AgentURL: stranger,
		FileURL: stranger + "traces/claim.md", Seq: 1, ClaimedHash: h, ServedHash: served, ObservedAt: at}
	for _, tc := range []struct {
		name     string
		agentURL string // of the dispute file: "" names its agent by name only
		want     []string
	}{
		{"a dispute about another agent claiming the hash", stranger,
			[]string{"stranger " + stranger + "traces/claim.md", "gamma " + gamma + "traces/x.md"}},
		{"a dispute of the same claim", gamma, []string{"gamma " + gamma + "traces/x.md"}},
		{"a dispute of the same claim naming its agent by name", "", []string{"gamma " + gamma + "traces/x.md"}},
		{"another reporter's dispute of the same claim", "another reporter", []string{"gamma " + gamma + "traces/x.md", "gamma " + gamma + "traces/x.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := published
			if tc.agentURL != stranger {
				d.Agent, d.AgentURL, d.FileURL = "gamma", tc.agentURL, gamma+"traces/x.md"
			}
			if tc.agentURL == "another reporter" {
				d.AgentURL, d.Reporter, d.ReporterURL = gamma, "beta", "https://beta.example/"
			}
			n := &Node{URL: "https://fern.example.org/", Files: []File{{Path: disputesDir + "/" + dispute.FileName(h), Data: d.Format()}}}
			l := ledger.New()
			l.AddRejection(gamma+"traces/x.md", &ledger.Rejection{Agent: "gamma", AgentURL: gamma, Seq: 3, ClaimedHash: h, ServedHash: served, At: at.Add(-time.Hour)})
			if tc.agentURL == stranger {
				l.AddRejection(stranger+"traces/claim.md", &ledger.Rejection{Agent: "stranger", AgentURL: stranger, Seq: 1, ClaimedHash: h, ServedHash: served, At: at})
			}
			loadDisputes(n, l)
			var got []string
			for _, d := range n.Disputes {
				got = append(got, d.Agent+" "+d.FileURL)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("disputes listed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
