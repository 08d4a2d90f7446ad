package relay

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// sharedFileURLs returns two URLs under base, prefix + a run of '-', '_'
// and '~' + "/", whose state files share a name (statefile.PeerFileName:
// one slug, and 32 bits of sha256 found by a birthday search of about
// 2^16 hashes).
func sharedFileURLs(t *testing.T, base, prefix string) (string, string) {
	t.Helper()
	seen := map[string]string{}
	for i := 1; i < 1<<22; i++ {
		var run strings.Builder
		for n := i; n > 0; n = (n - 1) / 3 {
			run.WriteByte("-_~"[(n-1)%3])
		}
		u := base + prefix + run.String() + "/"
		if other, ok := seen[statefile.PeerFileName(u)]; ok {
			return other, u
		}
		seen[statefile.PeerFileName(u)] = u
	}
	t.Fatal("no two URLs share a state file name")
	return "", ""
}

// TestARelayListingAnAgentOfItsFilesNameKeepsItsFault: a relay's
// operator runs, on its host, an agent the node polls at a URL whose
// state file is named as the relay's (statefile.PeerFileName: a birthday
// search of 2^16 hashes over two URLs it chooses). On a1601b37 the
// relay, faulted, listed that agent: the agent's file replaced the
// relay's under mesh-state/relays/, the fault was gone at the next load,
// and the relay was read and trusted again without its operator. An
// agent's file never takes a relay's name: the fault stays, and the
// agent, whose listing is kept nowhere, is polled on its own schedule.
func TestARelayListingAnAgentOfItsFilesNameKeepsItsFault(t *testing.T) {
	relayURL, agentURL := sharedFileURLs(t, "https://host.example/", "eve")
	path := filepath.Join(t.TempDir(), "mesh-state", "relays.json")
	at := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	r := Relay{URL: relayURL, Key: "host.example/eve+00000000+AQ"}

	s, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Held(r)
	h.Fault = &Fault{Kind: FaultForged, Detail: "the agent's pinned key does not verify the checkpoint it relayed", At: at}
	h.Agents = map[string]Listed{agentURL: {Size: 3, Root: "cm9vdA==", Seen: at}}
	if _, err := s.Save(); err != nil {
		t.Fatal(err)
	}

	back, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if f := back.Held(r).Fault; f == nil || f.Kind != FaultForged {
		t.Errorf("the relay's fault after a load: %+v, want it kept", f)
	}
}
