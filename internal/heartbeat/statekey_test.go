package heartbeat

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// sharedKeyURLs returns two URLs under base, prefix + a run of '-', '_'
// and '~' + "/", whose state files share a name (statefile.PeerFileName:
// the same slug, since the run is one dash of it, and the same 32 bits of
// sha256, found by the birthday search an attacker would make, about
// 2^16 hashes; a second preimage of a given agent's name costs 2^32).
func sharedKeyURLs(t testing.TB, base, prefix string) (string, string) {
	t.Helper()
	seen := map[string]string{}
	for i := 1; i < 1<<22; i++ {
		var run strings.Builder
		for n := i; n > 0; n = (n - 1) / 3 {
			run.WriteByte("-_~"[(n-1)%3])
		}
		u := base + prefix + run.String() + "/"
		key := statefile.PeerFileName(u)
		if other, ok := seen[key]; ok {
			return other, u
		}
		seen[key] = u
	}
	t.Fatal("no two URLs share a state file name")
	return "", ""
}

// TestGossipCannotAddAURLSharingAKnownPeersStateFile: a gossiping peer
// lists a URL (on the agent's host, which it need not control: a URL
// that only fails still gets a cursor) whose state files are named as a
// known agent's are. On 14f1df39 both cursors were written to one file
// and whichever Save wrote last won: the agent's cursor, gaps and seen
// files, and the pin of its signed log, could be replaced by the
// stranger's. The rule: a gossiped URL whose state key a known URL holds
// is refused, with a log line.
func TestGossipCannotAddAURLSharingAKnownPeersStateFile(t *testing.T) {
	good := newFakePeer(t)
	known, squat := sharedKeyURLs(t, good.URL, "/good1")
	path := strings.TrimPrefix(known, good.URL)
	good.publish(path, []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": "# A\n\n## Work\n\nMine.\n"})
	gossip := newFakePeer(t)
	gossip.publish("/g/", nil, nil)
	gossip.serve("/g/AGENTS.md", agentsFile([2]string{"squatter", squat}))
	dir := newNode(t, [][2]string{{"gossip", gossip.URL + "/g/"}, {"good1", known}}, "")

	logs := beatsKeepingItsCursor(t, dir, known, squat)
	if !strings.Contains(logs.String(), "gossip line ignored") || !strings.Contains(logs.String(), "state file") {
		t.Errorf("no log line says the gossiped URL was refused:\n%s", logs.String())
	}
}

// keepsItsCursor checks that the agent at known has its own cursor, its
// one trace read, and the URL sharing its state file none.
// beatsKeepingItsCursor runs two heartbeats, 30 minutes apart, checking
// after each that known keeps its cursor (keepsItsCursor), and returns
// their log.
func beatsKeepingItsCursor(t *testing.T, dir, known, squat string) *bytes.Buffer {
	t.Helper()
	var logs bytes.Buffer
	for i := range 2 {
		beatLogged(t, dir, testNow.Add(time.Duration(i)*cursorStep), &logs)
		keepsItsCursor(t, dir, known, squat)
	}
	return &logs
}

func keepsItsCursor(t *testing.T, dir, known, squat string) {
	t.Helper()
	st := loadState(t, dir)
	if c := st.Cursors[squat]; c != nil {
		t.Errorf("%s, whose state file is %s's, has a cursor: %+v", squat, known, c)
	}
	if c := st.Cursors[known]; c == nil || c.LastSeenSeq != 1 {
		t.Errorf("%s's cursor is %+v, want its own with seq 1 read", known, c)
	}
}

// TestALearnedPeerSharingAListedAgentsStateFileIsForgotten: a peer
// learned before gossip refused a URL whose state files are a known
// agent's gives way to the agent AGENTS.md lists: it is forgotten, and
// the agent keeps its own cursor.
func TestALearnedPeerSharingAListedAgentsStateFileIsForgotten(t *testing.T) {
	good := newFakePeer(t)
	known, squat := sharedKeyURLs(t, good.URL, "/good1")
	path := strings.TrimPrefix(known, good.URL)
	good.publish(path, []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": "# A\n\n## Work\n\nMine.\n"})
	dir := newNode(t, [][2]string{{"good1", known}}, "")
	st := loadState(t, dir)
	c := st.Cursor(squat)
	c.Agent, c.LearnedFrom = "squatter", "http://127.0.0.1:2/g/"
	if _, err := st.Save(filepath.Join(dir, filepath.FromSlash(node.CursorsFile)), time.Time{}); err != nil {
		t.Fatal(err)
	}

	logs := beatsKeepingItsCursor(t, dir, known, squat)
	if !strings.Contains(logs.String(), "learned peer forgotten") {
		t.Errorf("no log line says the learned peer was forgotten:\n%s", logs.String())
	}
}

// TestTheSecondAgentsLineSharingAStateFileIsSkipped: two lines of
// AGENTS.md whose URLs share a state file (a person copied a URL a
// stranger ground): the first keeps its cursor, the second is skipped
// with a warning, as a line whose name is taken is.
func TestTheSecondAgentsLineSharingAStateFileIsSkipped(t *testing.T) {
	good := newFakePeer(t)
	known, squat := sharedKeyURLs(t, good.URL, "/good1")
	path := strings.TrimPrefix(known, good.URL)
	good.publish(path, []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": "# A\n\n## Work\n\nMine.\n"})
	dir := newNode(t, [][2]string{{"good1", known}, {"squatter", squat}}, "")

	logs := beatsKeepingItsCursor(t, dir, known, squat)
	if !strings.Contains(logs.String(), "AGENTS.md agent skipped") || !strings.Contains(logs.String(), "state file") {
		t.Errorf("no log line says the second line was skipped:\n%s", logs.String())
	}
}
