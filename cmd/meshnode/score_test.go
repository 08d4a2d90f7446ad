package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/pullrequest"
	"github.com/meshnode/meshnode/internal/pullrequest/fakegithub"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

// scoreNode writes a mesh.yaml with scorer and a ledger in which the
// peer of each item of waitingQueue lists its trace, and returns the
// node directory.
func scoreNode(t *testing.T, scorer string) string {
	t.Helper()
	dir := t.TempDir()
	yaml := "agent: ada\nurl: https://ada.github.io/mesh/\nscorer: " + scorer + "\n"
	if err := os.WriteFile(filepath.Join(dir, "mesh.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	writeListings(t, dir, waitingQueue())
	return dir
}

// writeListings writes the node's ledger: the trace of each item, listed
// by the item's peer.
func writeListings(t *testing.T, dir string, items []queue.Item) *ledger.Ledger {
	t.Helper()
	l := ledger.New()
	for _, it := range items {
		l.AddTrace(&ledger.Trace{Agent: it.From, AgentURL: it.FromURL, Hash: it.Hash, Seq: 1, URL: it.TraceURL, Verified: true, Status: "pending"})
	}
	saveLedger(t, dir, l)
	return l
}

func saveLedger(t *testing.T, dir string, l *ledger.Ledger) {
	t.Helper()
	if _, err := l.Save(filepath.Join(dir, filepath.FromSlash(node.LedgerFile))); err != nil {
		t.Fatal(err)
	}
}

func waitingQueue() []queue.Item {
	s := validation.Scores{4, 3, 4, 2, 4, 3}
	queued := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return []queue.Item{
		{ID: "aaaaaaaaaaaa", Hash: manifest.Hash("sha256:" + strings.Repeat("a", 64)), From: "bob", FromURL: "https://bob.example/", TraceURL: "https://bob.example/traces/a.md",
			Title: "Alpha", Status: queue.StatusQueued, QueuedAt: queued, Suggested: &s,
			SuggestedReasons: map[string][]string{"substance": {"412 words"}}, SuggestedNotes: "Solid."},
		{ID: "bbbbbbbbbbbb", Hash: manifest.Hash("sha256:" + strings.Repeat("b", 64)), From: "cy", FromURL: "https://cy.example/", TraceURL: "https://cy.example/traces/b.md",
			Title: "Beta", Status: queue.StatusQueued, QueuedAt: queued},
		{ID: "cccccccccccc", Hash: manifest.Hash("sha256:" + strings.Repeat("c", 64)), From: "cy", FromURL: "https://cy.example/", Title: "Done", Status: "done", Suggested: &s},
	}
}

func runScoreT(t *testing.T, o scoreOptions) (string, error) {
	t.Helper()
	var out bytes.Buffer
	e := &env{stdout: &out, stderr: &out, now: time.Now}
	if o.list == nil {
		o.list = func(string) ([]queue.Item, error) { return waitingQueue(), nil }
	}
	if o.getenv == nil {
		o.getenv = func(string) string { return "" }
	}
	err := runScore(context.Background(), e, o)
	return out.String(), err
}

func TestScoreListsWaitingTracesWithTheirSuggestion(t *testing.T) {
	o := scoreOptions{}
	o.dir = scoreNode(t, "manual")
	out, err := runScoreT(t, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"aaaaaaaaaaaa  bob  Alpha\n",
		"suggested 20/30 pass: substance 4 uniqueness 3",
		"bbbbbbbbbbbb  cy  Beta\n    https://cy.example/traces/b.md\n    no suggestion yet",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "cccccccccccc") {
		t.Errorf("a finished item is listed:\n%s", out)
	}
}

func githubEnv(apiURL string) func(string) string {
	env := map[string]string{"GITHUB_TOKEN": "t0ken", "GITHUB_REPOSITORY": fakegithub.Owner + "/" + fakegithub.Repo, "GITHUB_API_URL": apiURL}
	return func(k string) string { return env[k] }
}

func TestScorePROpensOnePullRequestOfDrafts(t *testing.T) {
	f, c := fakegithub.New(t, map[string]string{"MANIFEST.md": "# MANIFEST\n"})
	o := scoreOptions{pr: true, getenv: githubEnv(c.BaseURL.String())}
	o.dir = scoreNode(t, "manual")

	out, err := runScoreT(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "opened pull request #1") || !strings.Contains(out, "1 waiting trace(s) have no suggestion yet") {
		t.Errorf("output:\n%s", out)
	}
	got, ok := f.File("meshnode/scores", "validations/val-aaaaaaaaaaaa.md")
	if !ok {
		t.Fatal("draft not on the branch")
	}
	v, err := validation.Parse([]byte(got))
	if err != nil {
		t.Fatal(err)
	}
	if v.Validator != "ada" || v.ValidatorURL != "https://ada.github.io/mesh/" || v.Total != 20 || v.Result != "pass" ||
		v.TraceURL != "https://bob.example/traces/a.md" || !strings.Contains(got, "substance 4/5: 412 words") {
		t.Errorf("draft:\n%s", got)
	}
	if _, ok := f.File("meshnode/scores", "validations/val-bbbbbbbbbbbb.md"); ok {
		t.Error("a trace without a suggestion was drafted")
	}

	// GitHub starts no workflow for it: score --pr starts the check itself,
	// once per head that has no "meshnode check" status yet.
	if d := f.Dispatches(); !strings.Contains(out, "started check.yml for pull request #1") || len(d) != 1 ||
		d[0].Workflow != "check.yml" || d[0].Ref != "main" || d[0].Inputs["pr"] != "1" {
		t.Errorf("dispatches %+v, output:\n%s", d, out)
	}
	head := f.Head("meshnode/scores")
	if err := pullrequest.ReportStatus(context.Background(), c, fakegithub.Owner, fakegithub.Repo, head, pullrequest.Status{State: "success"}); err != nil {
		t.Fatal(err)
	}

	out, err = runScoreT(t, o)
	if err != nil || !strings.Contains(out, "pull request #1 is up to date") || len(f.Pulls()) != 1 {
		t.Errorf("second run: %v, %d pull requests, output:\n%s", err, len(f.Pulls()), out)
	}
	if n := len(f.Dispatches()); n != 1 || strings.Contains(out, "started") {
		t.Errorf("a checked head was dispatched again (%d dispatches):\n%s", n, out)
	}
}

func TestScorePRWhenManualSkipsOtherScorers(t *testing.T) {
	o := scoreOptions{pr: true, whenManual: true}
	o.dir = scoreNode(t, "heuristic")
	out, err := runScoreT(t, o)
	if err != nil || !strings.Contains(out, "scorer is heuristic, not manual") {
		t.Errorf("err %v, output %q", err, out)
	}
}

func TestScorePRRefusesAMissingEnvironment(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"no token", map[string]string{"GITHUB_REPOSITORY": "a/b"}, "GITHUB_TOKEN is not set"},
		{"no repository", map[string]string{"GITHUB_TOKEN": "x"}, `no GITHUB_REPOSITORY`},
		{"bad repository", map[string]string{"GITHUB_TOKEN": "x", "GITHUB_REPOSITORY": "a/b/c"}, "is not OWNER/REPO"},
		{"bad api url", map[string]string{"GITHUB_TOKEN": "x", "GITHUB_REPOSITORY": "a/b", "GITHUB_API_URL": "ftp://x"}, "is not an http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := scoreOptions{pr: true, getenv: func(k string) string { return tt.env[k] }}
			o.dir = scoreNode(t, "manual")
			_, err := runScoreT(t, o)
			var ue *usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want a usage error with %q", err, tt.wantErr)
			}
		})
	}
}

func TestScoreReadsTheRealQueueFile(t *testing.T) {
	dir := scoreNode(t, "manual")
	q := queue.Open(filepath.Join(dir, "mesh-state", "queue.json"))
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	it := waitingQueue()[0]
	if _, err := q.Enqueue(queue.Item{ID: it.ID, Hash: it.Hash, From: it.From, FromURL: it.FromURL, TraceURL: it.TraceURL, Title: it.Title, QueuedAt: now}); err != nil {
		t.Fatal(err)
	}
	res, err := q.Update(queue.Update{Kind: queue.Suggest, ID: it.ID, At: now,
		Suggestion: &queue.Suggestion{Scores: *it.Suggested, Reasons: it.SuggestedReasons, Notes: it.SuggestedNotes}})
	if err != nil || res[0] != nil {
		t.Fatal(err, res)
	}
	code, stdout, stderr := runSetupCLI(t, "score", "--dir", dir)
	if code != exitOK || !strings.Contains(stdout, "aaaaaaaaaaaa  bob  Alpha") || !strings.Contains(stdout, "suggested 20/30 pass") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// Outside Actions GITHUB_REPOSITORY is unset: the repository comes from the
// origin remote, as for init.
func TestScorePRFindsTheRepositoryFromTheOriginRemote(t *testing.T) {
	f, c := fakegithub.New(t, map[string]string{"MANIFEST.md": "# MANIFEST\n"})
	env := map[string]string{"GITHUB_TOKEN": "t0ken", "GITHUB_API_URL": c.BaseURL.String()}
	tests := []struct {
		name, remote, wantErr string
	}{
		{"github remote", "git@github.com:" + fakegithub.Owner + "/" + fakegithub.Repo + ".git", ""},
		{"other host", "https://git.example.org/ada/node.git", `remote "https://git.example.org/ada/node.git" is not a github.com repository`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := scoreOptions{pr: true, getenv: func(k string) string { return env[k] },
				remote: func(string) (string, error) { return tt.remote, nil }}
			o.dir = scoreNode(t, "manual")
			out, err := runScoreT(t, o)
			if tt.wantErr != "" {
				var ue *usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want a usage error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(out, "pull request #1") || len(f.Pulls()) != 1 {
				t.Errorf("err %v, %d pull requests, output:\n%s", err, len(f.Pulls()), out)
			}
		})
	}
}

// TestScoreSaysWhyATraceHasNoSuggestion: the reason is the truth for the
// node: without standing the heartbeat never suggests, and says what to
// do; a founder with the manual scorer gets a suggestion next heartbeat.
func TestScoreSaysWhyATraceHasNoSuggestion(t *testing.T) {
	tests := []struct {
		name, scorer, founders string
		want                   string
	}{
		{"no FOUNDERS.md", "manual", "", "only once this node has standing (no standing: FOUNDERS.md names no founders"},
		{"another node founded the mesh", "manual", "bob | https://bob.example/\n", "no standing yet: SIGNAL 0 of the 50 standing needs"},
		{"a founder with the manual scorer", "manual", "ada | https://ada.github.io/mesh/\n", "1 waiting trace(s) have no suggestion yet: the next heartbeat adds one"},
		{"a founder with the heuristic scorer", "heuristic", "ada | https://ada.github.io/mesh/\n", "the scorer is heuristic: the next heartbeat scores it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := scoreOptions{}
			o.dir = scoreNode(t, tt.scorer)
			if tt.founders != "" {
				if err := os.WriteFile(filepath.Join(o.dir, "FOUNDERS.md"), []byte(tt.founders), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, err := runScoreT(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
		})
	}
}

// A node without standing that follows a peer with three traces: score
// lists the three and says once why none has a suggestion (it printed the
// long standing message once per item, 498 lines for the real mesh).
func TestScoreWithoutStandingSaysWhyOnce(t *testing.T) {
	bob := newPeer(t, "bob")
	publishTrace(t, bob.dir, "Second finding")
	publishTrace(t, bob.dir, "Third finding")
	cliT(t, "heartbeat", "--dir", bob.dir)
	dir := newNode(t, map[string]string{"bob": bob.URL})
	cliT(t, "heartbeat", "--dir", dir)
	out := cliT(t, "score", "--dir", dir)
	if n := strings.Count(out, "    no suggestion yet\n"); n != 3 {
		t.Errorf("%d items say they have no suggestion, want 3:\n%s", n, out)
	}
	if n := strings.Count(out, "once this node has standing"); n != 1 {
		t.Errorf("the standing message is printed %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "3 waiting trace(s) have no suggestion yet: the heartbeat suggests scores only once this node has standing") {
		t.Errorf("no count and reason:\n%s", out)
	}
}

// TestScoreOffersOnlyTracesTheirPeerStillLists: `meshnode score` and its
// --pr drafts offered every waiting item, though the heartbeat scores or
// publishes one only while its peer lists its trace (ledger.ListedBy):
// an item of a peer that withdrew the trace, or whose listing the ledger
// holds as another agent's (an impostor forgotten, a mirror that gave
// way to the author), was drafted in that peer's name, its trace_url the
// peer's, for a person to merge. Now only bob's trace, still listed by
// bob, is offered; the others are counted, and why said once.
func TestScoreOffersOnlyTracesTheirPeerStillLists(t *testing.T) {
	s := validation.Scores{4, 3, 4, 2, 4, 3}
	queued := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	item := func(c, from string) queue.Item {
		return queue.Item{ID: strings.Repeat(c, 12), Hash: manifest.Hash("sha256:" + strings.Repeat(c, 64)), From: from,
			FromURL: "https://" + from + ".example/", TraceURL: "https://" + from + ".example/traces/" + c + ".md",
			Title: "Trace " + c, Status: queue.StatusQueued, QueuedAt: queued, Suggested: &s}
	}
	items := []queue.Item{item("a", "bob"), item("b", "cy"), item("d", "eve")}
	f, c := fakegithub.New(t, map[string]string{"MANIFEST.md": "# MANIFEST\n"})
	o := scoreOptions{list: func(string) ([]queue.Item, error) { return items, nil }}
	o.dir = scoreNode(t, "manual")
	l := writeListings(t, o.dir, items[:2])
	l.TakeDown(items[1].Hash, ledger.Withdrawn) // cy no longer lists its trace
	impostor := item("d", "eve")
	impostor.From, impostor.FromURL = "dan", "https://dan.example/" // the ledger holds dan's listing of it, not eve's
	l.AddTrace(&ledger.Trace{Agent: "dan", AgentURL: impostor.FromURL, Hash: impostor.Hash, Seq: 1, Verified: true, Status: "pending"})
	saveLedger(t, o.dir, l)

	out, err := runScoreT(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "aaaaaaaaaaaa  bob") || strings.Contains(out, "bbbbbbbbbbbb") || strings.Contains(out, "dddddddddddd") {
		t.Errorf("the list offers other than bob's trace:\n%s", out)
	}
	if !strings.Contains(out, "2 waiting trace(s) not offered") {
		t.Errorf("the list does not say two traces are not offered:\n%s", out)
	}

	o.pr, o.getenv = true, githubEnv(c.BaseURL.String())
	out, err = runScoreT(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.File("meshnode/scores", "validations/val-aaaaaaaaaaaa.md"); !ok {
		t.Errorf("bob's trace was not drafted:\n%s", out)
	}
	for _, id := range []string{"bbbbbbbbbbbb", "dddddddddddd"} {
		if got, ok := f.File("meshnode/scores", "validations/val-"+id+".md"); ok {
			t.Errorf("a trace its peer does not list was drafted:\n%s", got)
		}
	}
	if !strings.Contains(out, "2 waiting trace(s) not offered") {
		t.Errorf("--pr does not say two traces are not offered:\n%s", out)
	}
}

// TestScoreReadsOnlyTheWaitingItemsPeersRecords: `meshnode score` read
// every peer's records of the ledger, and through the standing it says,
// the whole history, on every run, though it asks the ledger only
// whether each waiting item's peer still lists its trace: seconds and
// hundreds of MB on a node of three years. It now opens the shards of
// the items' peers only, and, when every item offered has its
// suggestion, or none waits, nothing else of the ledger.
func TestScoreReadsOnlyTheWaitingItemsPeersRecords(t *testing.T) {
	for _, tc := range []struct {
		name  string
		items []queue.Item
		max   int // shards of mesh-state/ledger/ it may open
	}{
		{"two peers' suggested items", suggestedQueue(), 2},
		{"nothing waits", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, read := scoreReadingLedger(t, tc.items)
			if len(read) > tc.max {
				t.Errorf("score opened %d files of the ledger, want at most %d (its items' peers'):\n%s", len(read), tc.max, strings.Join(read, "\n"))
			}
			for _, it := range tc.items {
				if !strings.Contains(out, it.ID+"  "+it.From) {
					t.Errorf("output lacks %s:\n%s", it.ID, out)
				}
			}
		})
	}
}

// scoreReadingLedger runs `meshnode score` on a manual node offered items,
// its ledger listing the traces of waitingQueue's two waiting items and
// one trace of each of 300 other peers, and returns score's output and
// the files of the ledger it opened.
func scoreReadingLedger(t *testing.T, items []queue.Item) (out string, read []string) {
	t.Helper()
	o := scoreOptions{list: func(string) ([]queue.Item, error) { return items, nil }}
	o.dir = scoreNode(t, "manual")
	l := writeListings(t, o.dir, waitingQueue()[:2])
	for i := range 300 {
		u := fmt.Sprintf("https://peer-%d.example/", i)
		l.AddTrace(&ledger.Trace{Agent: fmt.Sprint("peer-", i), AgentURL: u, Hash: manifest.HashBytes([]byte(u)), Seq: 1, Verified: true, Status: "pending"})
	}
	saveLedger(t, o.dir, l)
	ledgerDir := filepath.Join(o.dir, filepath.FromSlash(statefile.Dir(node.LedgerFile)))
	t.Cleanup(statefile.SetReadHook(func(p string) {
		if strings.HasPrefix(p, ledgerDir) {
			read = append(read, p)
		}
	}))
	out, err := runScoreT(t, o)
	if err != nil {
		t.Fatal(err)
	}
	return out, read
}

// suggestedQueue is waitingQueue's waiting items, each with a suggestion.
func suggestedQueue() []queue.Item {
	items := waitingQueue()[:2]
	items[1].Suggested = items[0].Suggested
	return items
}

// TestScoreReadsNoSettledItem: `meshnode score` read every settled item
// of the queue (mesh-state/queue-settled/, the queue's history: 80,000
// items on a node of three years) to list the few still waiting. It
// reads the items at work only (queue.Store.Active).
func TestScoreReadsNoSettledItem(t *testing.T) {
	dir := scoreNode(t, "manual")
	q := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile)))
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	q.Now = func() time.Time { return now }
	waiting, settled := waitingQueue()[0], waitingQueue()[1]
	for _, it := range []queue.Item{waiting, settled} {
		if _, err := q.Enqueue(queue.Item{ID: it.ID, Hash: it.Hash, From: it.From, FromURL: it.FromURL, TraceURL: it.TraceURL, Title: it.Title, QueuedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := q.Claim(queue.Claim{Owner: "w", Now: now, Max: 2})
	if err != nil || len(got) != 2 {
		t.Fatalf("claim: %v, %v", got, err)
	}
	for _, it := range got {
		if it.ID == settled.ID {
			if r, err := q.Update(queue.Update{Kind: queue.Finish, ID: it.ID, Owner: "w", Version: it.Version, Status: queue.StatusFailed, At: now}); err != nil || r[0] != nil {
				t.Fatalf("finish: %v %v", r, err)
			}
		}
	}
	settledDir := filepath.Join(dir, filepath.FromSlash(statefile.Dir(node.QueueSettledFile)))
	var read []string
	t.Cleanup(statefile.SetReadHook(func(p string) {
		if strings.HasPrefix(p, settledDir) {
			read = append(read, p)
		}
	}))
	code, stdout, stderr := runSetupCLI(t, "score", "--dir", dir)
	if code != exitOK || !strings.Contains(stdout, waiting.ID+"  bob  Alpha") || strings.Contains(stdout, settled.ID) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if len(read) > 0 {
		t.Errorf("score read settled items: %v", read)
	}
}

// TestScoreSaysANotedItemsWaitWithoutReadingTheHistory: an offered item
// without a suggestion made `meshnode score` compute the node's standing
// from the whole history (every shard of the ledger, every validation
// file) to say why, though the heartbeat had noted why it waits
// (queue.WaitWithdrawn, queue.WaitFetchFailed). When every such item is
// noted, the note is the reason said, and only the items' peers' records
// are read; an item not noted still gets the standing's reason.
func TestScoreSaysANotedItemsWaitWithoutReadingTheHistory(t *testing.T) {
	noted := func(reasons ...string) []queue.Item {
		items := waitingQueue()[:2]
		items[0].Suggested = nil
		for i, r := range reasons {
			items[i].Reason = r
		}
		return items
	}
	for _, tc := range []struct {
		name  string
		items []queue.Item
		want  []string
		max   int // shards of mesh-state/ledger/ it may open
	}{
		{"both failed to fetch", noted(queue.WaitFetchFailed, queue.WaitFetchFailed), []string{
			"aaaaaaaaaaaa  bob  Alpha\n    https://bob.example/traces/a.md\n    no suggestion yet: its trace failed to fetch again",
			"2 waiting trace(s) have no suggestion yet: their trace failed to fetch again"}, 2},
		{"one withdrawn, one failed to fetch", noted(queue.WaitWithdrawn, queue.WaitFetchFailed), []string{
			"no suggestion yet: its peer withdrew the trace",
			"1 waiting trace(s) have no suggestion yet: their peer withdrew the trace",
			"1 waiting trace(s) have no suggestion yet: their trace failed to fetch again"}, 2},
		{"one not noted", noted(queue.WaitFetchFailed), []string{
			"1 waiting trace(s) have no suggestion yet: their trace failed to fetch again",
			"1 waiting trace(s) have no suggestion yet: the heartbeat suggests scores only once this node has standing"}, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, read := scoreReadingLedger(t, tc.items)
			if len(read) > tc.max {
				t.Errorf("score opened %d files of the ledger, want at most %d (its items' peers'):\n%s", len(read), tc.max, strings.Join(read, "\n"))
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
