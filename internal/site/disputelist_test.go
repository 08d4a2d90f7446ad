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

// TestOurDisputeIsOursInAnySpellingOfOurURL: sameClaim took a published
// dispute for ours when its reporter_url was our URL with or without a
// final slash, and for another reporter's in any other spelling of our
// URL: a host in upper case, or a default port (mesh.yaml keeps the
// spelling it is given, and a dispute keeps the spelling of the day it
// was written), so the rejection it stands for was listed a second time.
// Our URL is now compared as signal.Names compares an agent_url.
func TestOurDisputeIsOursInAnySpellingOfOurURL(t *testing.T) {
	const ours, gamma = "https://fern.example.org/mesh/", "https://gamma.example/"
	h := manifest.HashBytes([]byte("gamma's trace"))
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, nodeURL, reporterURL string
		ours                       bool
	}{
		{"our URL", ours, ours, true},
		{"without its final slash", ours, "https://fern.example.org/mesh", true},
		{"its host in upper case", ours, "https://Fern.EXAMPLE.org/mesh/", true},
		{"its scheme in upper case and the default port", ours, "HTTPS://fern.example.org:443/mesh/", true},
		{"ours spelled in upper case in mesh.yaml", "https://FERN.example.org/mesh", ours, true},
		{"another host", ours, "https://fern.example.net/mesh/", false},
		{"another path", ours, "https://fern.example.org/mesh/other/", false},
		{"a path in another case", ours, "https://fern.example.org/Mesh/", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := dispute.Dispute{Reporter: "fern", ReporterURL: tc.reporterURL, Agent: "gamma", AgentURL: gamma,
				FileURL: gamma + "traces/x.md", Seq: 3, ClaimedHash: h, ServedHash: manifest.HashBytes([]byte("other bytes")), ObservedAt: at}
			n := &Node{URL: tc.nodeURL, Files: []File{{Path: disputesDir + "/" + dispute.FileName(h), Data: d.Format()}}}
			l := ledger.New()
			l.AddRejection(gamma+"traces/x.md", &ledger.Rejection{Agent: "gamma", AgentURL: gamma, Seq: 3, ClaimedHash: h, ServedHash: d.ServedHash, At: at})
			loadDisputes(n, l)
			want := 2
			if tc.ours {
				want = 1 // the published dispute stands for the rejection
			}
			if len(n.Disputes) != want {
				t.Errorf("%d disputes listed, want %d: %+v", len(n.Disputes), want, n.Disputes)
			}
		})
	}
}
