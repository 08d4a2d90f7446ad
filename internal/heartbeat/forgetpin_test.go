package heartbeat

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestAForgottenPeersLogPinGoesWithIt: the node learned an impostor as
// alice by gossip and pinned the key of its signed log. A person lists the
// real alice elsewhere, and the impostor is forgotten with its cursor and
// records: its pin goes too. Then a person lists another agent, bob, at
// the impostor's old URL, whose log is signed by another key: it is read
// from its first contact. Before, the forgotten peer's pin stayed for
// ever, its alarm shown among the refused logs, and bob's log was refused
// as a key change of the impostor's.
func TestAForgottenPeersLogPinGoesWithIt(t *testing.T) {
	squat := newFakePeer(t)
	serveLog(t, squat, "imp", 3, "/x/")
	x := squat.URL + "/x/"
	gossip := newFakePeer(t)
	gossip.publish("/g/", nil, nil)
	gossip.serve("/g/AGENTS.md", agentsFile([2]string{"alice", x}))
	alice := newFakePeer(t)
	alice.publish("/a/", []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": "# A\n\n## Work\n\nAlice's.\n"})
	dir := newNode(t, [][2]string{{"gossip", gossip.URL + "/g/"}}, "")
	beat(t, dir, testNow)                 // learns the impostor as alice
	beat(t, dir, testNow.Add(cursorStep)) // pins its log
	was := loadPins(t, dir).Get(x)
	if was == nil || was.Key == "" || was.Size() != 3 {
		t.Fatalf("setup: the impostor's log is not pinned: %+v", was)
	}

	write(t, dir, node.AgentsFile, string(agentsFile([2]string{"gossip", gossip.URL + "/g/"}, [2]string{"alice", alice.URL + "/a/"})))
	var logs bytes.Buffer
	beatLogged(t, dir, testNow.Add(2*cursorStep), &logs)
	if got := loadPins(t, dir).Get(x); got != nil {
		t.Errorf("the forgotten peer's pin stays: %+v", got)
	}
	if !strings.Contains(logs.String(), "log pin of a forgotten peer dropped") {
		t.Errorf("no log line says the pin was dropped:\n%s", logs.String())
	}

	serveLog(t, squat, "bob", 2, "/x/")
	write(t, dir, node.AgentsFile, string(agentsFile([2]string{"gossip", gossip.URL + "/g/"},
		[2]string{"alice", alice.URL + "/a/"}, [2]string{"bob", x})))
	sum := beat(t, dir, testNow.Add(3*cursorStep))
	if len(sum.LogsRefused) != 0 {
		t.Errorf("logs refused: %+v", sum.LogsRefused)
	}
	if got := loadPins(t, dir).Get(x); got == nil || got.Alarm != nil || got.Key == was.Key || got.Size() != 2 {
		t.Errorf("bob's log at the forgotten peer's URL: pin %+v, want his own key, his 2 entries read", got)
	}
}

// TestAForgottenSpellingsPinLeavesThePolledURLsOwn: the node learned by
// gossip a second spelling of a listed agent's URL (an escaped letter),
// polled it and pinned its log there. The spelling is forgotten, and its
// pin with it; the pin of the URL the agent is polled at, its own, is
// left as it was, not replaced by the forgotten one's (a forget is not a
// move).
func TestAForgottenSpellingsPinLeavesThePolledURLsOwn(t *testing.T) {
	p, _ := logPeerAt(t, 3, "/x/")
	canon, spelled := p.URL+"/x/", p.URL+"/%78/"
	dir := newNode(t, [][2]string{{"big", canon}}, "gossip:\n  enabled: false\n")
	beat(t, dir, testNow)
	pins := loadPins(t, dir)
	own := pins.Get(canon)
	if own == nil || own.Key == "" {
		t.Fatalf("setup: the agent's log is not pinned: %+v", own)
	}
	copied := *own
	copied.URL, copied.Key = spelled, "another key"
	pins.Put(&copied)
	if _, err := pins.Save(); err != nil {
		t.Fatal(err)
	}
	st := loadState(t, dir)
	c := st.Cursor(spelled)
	c.Agent, c.LearnedFrom = "bigalias", "http://127.0.0.1:2/g/"
	if _, err := st.Save(filepath.Join(dir, filepath.FromSlash(node.CursorsFile)), time.Time{}); err != nil {
		t.Fatal(err)
	}

	beat(t, dir, testNow.Add(cursorStep))
	if c := loadState(t, dir).Cursors[spelled]; c != nil {
		t.Fatalf("setup: the second spelling is kept: %+v", c)
	}
	pins = loadPins(t, dir)
	if got := pins.Get(spelled); got != nil {
		t.Errorf("the forgotten spelling's pin stays: %+v", got)
	}
	if got := pins.Get(canon); got == nil || got.Key != own.Key || got.Checkpoint != own.Checkpoint {
		t.Errorf("the polled URL's pin is %+v, want its own, %+v", got, own)
	}
}

// TestAPinAnOlderNodeLeftOfAForgottenPeerIsDroppedOnce: an older node
// forgot a learned peer and left its pin, alarm and all. The next
// heartbeat drops it, and only it: the pin of an agent a person took out
// of AGENTS.md stays with its cursor, kept for when it is listed again.
// The heartbeat after writes no pin file.
func TestAPinAnOlderNodeLeftOfAForgottenPeerIsDroppedOnce(t *testing.T) {
	p, _ := logPeerAt(t, 3, "/x/")
	listed := p.URL + "/x/"
	dir := newNode(t, [][2]string{{"big", listed}}, "gossip:\n  enabled: false\n")
	beat(t, dir, testNow)
	write(t, dir, node.AgentsFile, string(agentsFile()))
	beat(t, dir, testNow.Add(cursorStep))
	pins := loadPins(t, dir)
	kept := pins.Get(listed)
	if kept == nil || loadState(t, dir).Cursors[listed] == nil {
		t.Fatalf("setup: the agent taken out of AGENTS.md has pin %+v and no cursor", kept)
	}
	forgotten := "http://127.0.0.1:2/gone/"
	pins.Put(&logpin.Pin{URL: forgotten, Key: "k", Alarm: &logpin.Alarm{Kind: logpin.AlarmFork, Detail: "two roots", At: testNow}})
	if _, err := pins.Save(); err != nil {
		t.Fatal(err)
	}
	if sum := beat(t, dir, testNow.Add(2*cursorStep)); !sum.Changed || len(sum.LogsRefused) != 0 {
		t.Errorf("the heartbeat that drops the pin: changed %v, logs refused %+v", sum.Changed, sum.LogsRefused)
	}
	pins = loadPins(t, dir)
	if got := pins.Get(forgotten); got != nil {
		t.Errorf("the pin left of a forgotten peer stays: %+v", got)
	}
	if got := pins.Get(listed); got == nil || got.Key != kept.Key || got.Checkpoint != kept.Checkpoint {
		t.Errorf("the pin of the agent taken out of AGENTS.md is %+v, want %+v", got, kept)
	}
	pinsDir := statefile.Dir(filepath.Join(dir, node.LogPinsFile))
	before := filesIn(t, pinsDir)
	beat(t, dir, testNow.Add(3*cursorStep))
	if w := rewritten(t, pinsDir, before); len(w) != 0 {
		t.Errorf("the heartbeat after wrote pins again: %q", w)
	}
}

// filesIn returns the files under dir, by path.
func filesIn(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	out := map[string]os.FileInfo{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		out[p] = info
		return err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

// rewritten returns the files under dir that are not those of before,
// the same files not written since (an atomic write makes a new file):
// those written, added or removed.
func rewritten(t *testing.T, dir string, before map[string]os.FileInfo) []string {
	t.Helper()
	after := filesIn(t, dir)
	var out []string
	for p, info := range after {
		if was, ok := before[p]; !ok || !os.SameFile(was, info) || !was.ModTime().Equal(info.ModTime()) {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
