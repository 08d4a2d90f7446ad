package heartbeat

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/validation"
)

// movedLog is what the heartbeat logs when it moves an agent's records to
// the new URL a person gave it in AGENTS.md.
const movedLog = "cursor moved to the agent's new URL in AGENTS.md"

// movingAgent is alice, with one trace and one validation of gamma's trace,
// served the same at /old/ and /new/ of one fake peer, and gamma at /gamma/.
type movingAgent struct {
	p     *fakePeer
	gamma manifest.Hash // gamma's trace, the one alice validates
}

func newMovingAgent(t *testing.T) movingAgent {
	t.Helper()
	p := newFakePeer(t)
	g := manifest.HashBytes([]byte(gammaTrace))
	p.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/x.md", gammaTrace}})
	aliceTrace := "# Alice's work\n\n## Work\n\nMeasured once.\n"
	v := validation.Validation{Validator: "alice", TraceURL: p.URL + "/gamma/traces/x.md", TraceHash: g,
		ValidatedAt: testNow.Add(-time.Hour), Result: validation.ResultPass, Total: 20, HasScores: true,
		Scores: validation.Scores{4, 4, 4, 4, 2, 2}, Notes: "Sound."}
	rows := [][4]string{
		{"traces/001-work.md", aliceTrace, "knowledge", "pending"},
		{"validations/" + validation.FileName(g), string(v.Format()), "validation", "published"},
	}
	p.publishRows("/old/", rows)
	p.publishRows("/new/", rows)
	return movingAgent{p: p, gamma: g}
}

func (m movingAgent) url(path string) string { return m.p.URL + path }

// TestAnAgentAPersonMovesKeepsItsRecordsAtItsNewURL: alice, listed in our
// AGENTS.md, moves her files to a new URL and a person edits AGENTS.md to
// the new one. The old URL's cursor is not learned (LearnedFrom empty), so
// forgetPeer never runs for it, and adoptRespelled moves only a second
// spelling of one URL. Before this rule the ledger kept everything alice
// published under the old URL: read again at the new URL, her traces were
// recorded as copies of her own old records, and each validation she
// published was a second record under a second agent.
//
// Attack: none needed; a peer's move is ordinary. Harm: under mesh-2026-3
// every trace alice published before the move was "copied" (listed by two
// agents) and earned nobody anything, and each of her validations was a
// vote of two listers (rule 6 of "Copies"). The rule (docs/decisions.md,
// "Names": a name our AGENTS.md binds that changes URL takes its cursor
// and its records to the new URL): one agent at one URL, whose records
// follow the person's edit, moved once and said once.
func TestAnAgentAPersonMovesKeepsItsRecordsAtItsNewURL(t *testing.T) {
	m := newMovingAgent(t)
	dir := newNode(t, [][2]string{{"gamma", m.url("/gamma/")}, {"alice", m.url("/old/")}}, "")
	beat(t, dir, testNow)

	write(t, dir, node.AgentsFile, string(agentsFile([2]string{"gamma", m.url("/gamma/")}, [2]string{"alice", m.url("/new/")})))
	var logs bytes.Buffer
	beatLogged(t, dir, testNow.Add(cursorStep), &logs)
	beatLogged(t, dir, testNow.Add(2*cursorStep), &logs)
	if m.p.hitsOf("/new/MANIFEST.md") == 0 {
		t.Fatal("setup: alice's new URL was not read")
	}
	assertMovedTo(t, dir, m, m.url("/old/"), m.url("/new/"))
	if n := strings.Count(logs.String(), movedLog); n != 1 {
		t.Errorf("the move is logged %d times, want once:\n%s", n, logs.String())
	}
}

// TestAMoveStoppedBetweenTheLedgersSaveAndTheCursorsIsFinishedByTheNextRun:
// the ledger is saved before the cursors, so a heartbeat stopped between
// the two leaves alice's records at her new URL and her cursor at the old
// one. The next heartbeat moves the cursor too: no record stays at the
// old URL and nothing is a copy.
func TestAMoveStoppedBetweenTheLedgersSaveAndTheCursorsIsFinishedByTheNextRun(t *testing.T) {
	m := newMovingAgent(t)
	dir := newNode(t, [][2]string{{"gamma", m.url("/gamma/")}, {"alice", m.url("/old/")}}, "")
	beat(t, dir, testNow)

	write(t, dir, node.AgentsFile, string(agentsFile([2]string{"gamma", m.url("/gamma/")}, [2]string{"alice", m.url("/new/")})))
	l := loadLedger(t, dir)
	l.Rename(m.url("/old/"), m.url("/new/"))
	if _, err := l.Save(filepath.Join(dir, filepath.FromSlash(node.LedgerFile))); err != nil {
		t.Fatal(err)
	}
	beat(t, dir, testNow.Add(cursorStep))
	beat(t, dir, testNow.Add(2*cursorStep))
	assertMovedTo(t, dir, m, m.url("/old/"), m.url("/new/"))
}

// assertMovedTo checks that alice's cursor and records are at to, none at
// from, and that none of them is a copy or a second vote.
func assertMovedTo(t *testing.T, dir string, m movingAgent, from, to string) {
	t.Helper()
	st := loadState(t, dir)
	if c := st.Cursors[to]; c == nil || c.LastSeenSeq != 2 {
		t.Errorf("alice's cursor at %s is %+v, want the one read up to seq 2", to, c)
	}
	if c := st.Cursors[from]; c != nil {
		t.Errorf("a cursor still lingers at alice's old URL: %+v", c)
	}
	l := loadLedger(t, dir)
	for _, c := range l.SortedCopies() {
		t.Errorf("alice's trace %s is a copy listed by %s of %s's record", c.Hash, c.AgentURL, l.Traces[c.Hash].AgentURL)
	}
	for _, tr := range l.Traces {
		if tr.AgentURL == from || strings.HasPrefix(tr.URL, from) {
			t.Errorf("trace %s stays at %s under %s", tr.Hash, tr.URL, tr.AgentURL)
		}
	}
	vs := l.ValidationsOf(m.gamma)
	var by []string
	for _, x := range vs {
		by = append(by, x.ValidatorURL)
	}
	if len(vs) != 1 || vs[0].ValidatorURL != to {
		t.Errorf("alice's one validation of gamma's trace is %d records, by %v; want one, by %s", len(vs), by, to)
	}
}

// TestAURLChangeMovesOnlyTheOldCursorOfAListedAgent: the records of an
// old URL move to the new one only when the old URL's cursor is the
// agent's alone (not learned by gossip, not listed under another name) and
// the new URL has none; otherwise each URL keeps its own records.
func TestAURLChangeMovesOnlyTheOldCursorOfAListedAgent(t *testing.T) {
	for _, tc := range []struct {
		name string
		// first is our AGENTS.md before the edit, beside gamma; then,
		// after it. The gamma peer gossips alice at /old/.
		first, then [][2]string
		// oldKept: the old URL keeps a cursor and its records.
		oldKept bool
	}{
		{name: "the new URL already has a cursor: a person listed both for a while",
			first: [][2]string{{"alice", "/old/"}, {"alice2", "/new/"}}, then: [][2]string{{"alice", "/new/"}}, oldKept: true},
		{name: "the old URL is still listed, under another name",
			first: [][2]string{{"alice", "/old/"}}, then: [][2]string{{"alice", "/new/"}, {"bob", "/old/"}}, oldKept: true},
		{name: "the old URL was learned by gossip: forgotten, not moved",
			first: nil, then: [][2]string{{"alice", "/new/"}}, oldKept: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMovingAgent(t)
			m.p.serve("/gamma/AGENTS.md", agentsFile([2]string{"alice", m.url("/old/")}))
			dir := newNode(t, m.listed(tc.first), "")
			beat(t, dir, testNow)
			beat(t, dir, testNow.Add(cursorStep))
			if loadState(t, dir).Cursors[m.url("/old/")] == nil {
				t.Fatal("setup: alice's old URL has no cursor")
			}

			write(t, dir, node.AgentsFile, string(agentsFile(m.listed(tc.then)...)))
			var logs bytes.Buffer
			beatLogged(t, dir, testNow.Add(2*cursorStep), &logs)
			beatLogged(t, dir, testNow.Add(3*cursorStep), &logs)
			if strings.Contains(logs.String(), movedLog) {
				t.Errorf("records moved:\n%s", logs.String())
			}
			if m.p.hitsOf("/new/traces/001-work.md") == 0 {
				t.Error("alice's new URL was not read in full: it took another URL's seen hashes")
			}
			l := loadLedger(t, dir)
			kept := loadState(t, dir).Cursors[m.url("/old/")] != nil
			for _, v := range l.ValidationsOf(m.gamma) {
				kept = kept || v.ValidatorURL == m.url("/old/")
			}
			if kept != tc.oldKept {
				t.Errorf("the old URL keeps its cursor or records: %v, want %v", kept, tc.oldKept)
			}
		})
	}
}

// listed is gamma's line, then agents whose URLs are paths of m's peer.
func (m movingAgent) listed(agents [][2]string) [][2]string {
	out := [][2]string{{"gamma", m.url("/gamma/")}}
	for _, a := range agents {
		out = append(out, [2]string{a[0], m.url(a[1])})
	}
	return out
}

// TestAnAgentListedAtOurOwnURLTakesNoRecords: a person who lists an
// agent's name at our own URL moves none of its records there: our URL is
// never polled as a peer's, so they would sit under it unread.
func TestAnAgentListedAtOurOwnURLTakesNoRecords(t *testing.T) {
	m := newMovingAgent(t)
	dir := newNode(t, m.listed([][2]string{{"alice", "/old/"}}), "")
	beat(t, dir, testNow)

	const self = "http://127.0.0.1:1/tester/" // newNode's url
	write(t, dir, node.AgentsFile, string(agentsFile([2]string{"gamma", m.url("/gamma/")}, [2]string{"alice", self})))
	var logs bytes.Buffer
	beatLogged(t, dir, testNow.Add(cursorStep), &logs)
	st := loadState(t, dir)
	if st.Cursors[self] != nil || st.Cursors[m.url("/old/")] == nil || strings.Contains(logs.String(), movedLog) {
		t.Errorf("alice's cursor moved to our own URL %s:\n%s", self, logs.String())
	}
}
