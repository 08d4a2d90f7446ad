package heartbeat

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/validation"
)

// otherScheme is url with https for http and http for https.
func otherScheme(url string) string {
	if rest, ok := strings.CutPrefix(url, "https://"); ok {
		return "http://" + rest
	}
	return "https://" + strings.TrimPrefix(url, "http://")
}

// TestGossipCannotAddAKnownURLUnderItsOtherScheme: a gossiping peer lists
// a known URL under its other scheme (https:// for http:// or the
// reverse) and a new name. On the public mesh both name one server's
// files (the fetcher follows the upgrade redirect within the base, which
// GitHub Pages and most hosts send), so the node would poll the known
// agent again as a new one: every file of it listed by two agents, its
// traces recorded as copied (under mesh-2026-3 "a copied trace earns none
// of its listers anything") and each of its validations a second
// lister's vote too.
//
// Attack: one line of a gossiping peer's AGENTS.md. Harm: the agent loses
// what its traces earn, and its votes are counted for an alias it does not
// control. The rule (docs/decisions.md, "Names"): a gossiped URL that
// differs from a known one only in its scheme is refused, with a log line.
func TestGossipCannotAddAKnownURLUnderItsOtherScheme(t *testing.T) {
	good := newFakePeer(t)
	good.publish("/good1/", []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": "# A\n\n## Work\n\nMine.\n"})
	for _, tc := range []struct {
		name  string
		known string // the URL known, listed in AGENTS.md or our own
		self  bool
	}{
		{name: "an AGENTS.md agent's http URL as https", known: good.URL + "/good1/"},
		{name: "an AGENTS.md agent's https URL as http", known: "https://127.0.0.1:1/good1/"},
		{name: "our own URL as https", known: "http://127.0.0.1:1/tester/", self: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			alias := otherScheme(tc.known)
			gossip := newFakePeer(t)
			gossip.publish("/g/", nil, nil)
			gossip.serve("/g/AGENTS.md", agentsFile([2]string{"mirrorbot", alias}))
			listed := [][2]string{{"gossip", gossip.URL + "/g/"}}
			if !tc.self {
				listed = append(listed, [2]string{"good1", tc.known})
			}
			dir := newNode(t, listed, "")
			var logs bytes.Buffer
			beatLogged(t, dir, testNow, &logs)
			beat(t, dir, testNow.Add(cursorStep))

			if c := loadState(t, dir).Cursors[alias]; c != nil {
				t.Errorf("%s, the other scheme of %s, was learned: %+v", alias, tc.known, c)
			}
			if !strings.Contains(logs.String(), "gossip line ignored") || !strings.Contains(logs.String(), "other scheme") {
				t.Errorf("no log line says the gossiped URL was refused:\n%s", logs.String())
			}
		})
	}
}

// TestALearnedPeerAtAKnownURLsOtherSchemeIsForgotten: a peer learned
// before gossip refused a known URL's other scheme is forgotten with its
// records, as a learned second spelling of a URL is.
func TestALearnedPeerAtAKnownURLsOtherSchemeIsForgotten(t *testing.T) {
	good := newFakePeer(t)
	good.publish("/good1/", []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": "# A\n\n## Work\n\nMine.\n"})
	known := good.URL + "/good1/"
	alias := otherScheme(known)
	dir := newNode(t, [][2]string{{"good1", known}}, "")
	beat(t, dir, testNow)
	st := loadState(t, dir)
	c := st.Cursor(alias)
	c.Agent, c.LearnedFrom = "mirrorbot", "http://127.0.0.1:2/g/"
	if _, err := st.Save(filepath.Join(dir, filepath.FromSlash(node.CursorsFile)), time.Time{}); err != nil {
		t.Fatal(err)
	}

	var logs bytes.Buffer
	beatLogged(t, dir, testNow.Add(cursorStep), &logs)
	if c := loadState(t, dir).Cursors[alias]; c != nil {
		t.Errorf("%s, learned as the other scheme of %s, is kept: %+v", alias, known, c)
	}
	if !strings.Contains(logs.String(), "learned peer forgotten") {
		t.Errorf("no log line says the learned peer was forgotten:\n%s", logs.String())
	}
}

// TestAHostsOtherNameIsAMirrorThatTakesNothingFromTheAuthor: a gossiping
// peer lists a known agent's own files under another host name of the
// same server (here localhost for 127.0.0.1) and a new name. Nothing a
// node can check tells another host name of one server from a mirror (a
// MANIFEST.md's url: line is the peer's word, and the real agents write
// none), so the alias is a documented mirror (docs/decisions.md, "Copies";
// docs/security.md): the author keeps every record and vote, and under
// mesh-2026-3 its traces, listed by two agents, are copied and earn
// neither, as any mirror's copies do.
func TestAHostsOtherNameIsAMirrorThatTakesNothingFromTheAuthor(t *testing.T) {
	body := "# A\n\n## Work\n\nMine.\n"
	good := newFakePeer(t)
	g := manifest.HashBytes([]byte(gammaTrace))
	good.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/x.md", gammaTrace}})
	v := validation.Validation{Validator: "good1", TraceURL: good.URL + "/gamma/traces/x.md", TraceHash: g,
		ValidatedAt: testNow.Add(-time.Hour), Result: validation.ResultPass, Total: 20, HasScores: true,
		Scores: validation.Scores{4, 4, 4, 4, 2, 2}, Notes: "Sound."}
	good.publishRows("/good1/", [][4]string{
		{"traces/001-a.md", body, "knowledge", "pending"},
		{"validations/" + validation.FileName(g), string(v.Format()), "validation", "published"},
	})
	author := good.URL + "/good1/"
	alias := strings.Replace(good.URL, "127.0.0.1", "localhost", 1) + "/good1/"
	gossip := newFakePeer(t)
	gossip.publish("/g/", nil, nil)
	gossip.serve("/g/AGENTS.md", agentsFile([2]string{"mirrorbot", alias}))
	dir := newNode(t, [][2]string{{"gamma", good.URL + "/gamma/"}, {"good1", author}, {"gossip", gossip.URL + "/g/"}}, "")

	beat(t, dir, testNow)
	beat(t, dir, testNow.Add(cursorStep))
	l := loadLedger(t, dir)
	if !slices.ContainsFunc(l.SortedCopies(), func(c *ledger.Trace) bool { return c.AgentURL == alias }) {
		t.Fatal("setup: the alias was not read")
	}
	h := manifest.HashBytes([]byte(body))
	if tr := l.Traces[h]; tr == nil || tr.AgentURL != author {
		t.Errorf("good1's trace is %+v, want good1's record", tr)
	}
	var by []string
	for _, x := range l.ValidationsOf(g) {
		by = append(by, x.ValidatorURL)
	}
	if !strings.Contains(strings.Join(by, " "), author) {
		t.Errorf("good1's validation of gamma's trace is recorded by %v, not by good1 at %s", by, author)
	}
}
