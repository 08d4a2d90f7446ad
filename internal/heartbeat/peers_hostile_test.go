package heartbeat

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/validation"
)

// fakePeer is a peer on httptest whose routes a test sets path by path,
// counting the requests each path gets.
type fakePeer struct {
	*httptest.Server
	mu     sync.Mutex
	routes map[string]http.HandlerFunc
	hits   map[string]int
}

func newFakePeer(t testing.TB) *fakePeer {
	t.Helper()
	p := &fakePeer{routes: map[string]http.HandlerFunc{}, hits: map[string]int{}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.hits[r.URL.Path]++
		h := p.routes[r.URL.Path]
		p.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// handle sets what path answers.
func (p *fakePeer) handle(path string, h http.HandlerFunc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.routes[path] = h
}

// serve makes path answer body.
func (p *fakePeer) serve(path string, body []byte) {
	p.handle(path, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
}

func (p *fakePeer) hitsOf(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hits[path]
}

// publish serves a manifest under base listing files (name → content) in
// the given order as seqs 1, 2, …, and the files themselves.
func (p *fakePeer) publish(base string, names []string, files map[string]string) {
	m := manifest.Manifest{Agent: "peer", Sequence: manifest.Seq(len(names))}
	for i, name := range names {
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(i + 1), Hash: manifest.HashBytes([]byte(files[name])), File: name, Type: "knowledge", Status: "pending"})
		p.serve(base+name, []byte(files[name]))
	}
	p.serve(base+"MANIFEST.md", m.Format())
}

func TestRedirectOutsideThePeersBaseIsRefused(t *testing.T) {
	p := newFakePeer(t)
	body := "# Borrowed\n\n## Work\n\nSomeone else's file.\n"
	p.publish("/b/t/", []string{"traces/001-x.md"}, map[string]string{"traces/001-x.md": body})
	// The file redirects to another path of the host that serves the very
	// bytes the manifest lists: only the base path keeps them out.
	p.handle("/b/t/traces/001-x.md", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/outside/x.md", http.StatusFound)
	})
	p.serve("/outside/x.md", []byte(body))
	dir := newNode(t, [][2]string{{"peer", p.URL + "/b/t/"}}, "")

	sum := beat(t, dir, testNow)
	if p.hitsOf("/outside/x.md") != 0 {
		t.Error("the file outside the base was fetched")
	}
	if sum.Verified != 0 || sum.Rejected != 1 {
		t.Errorf("verified %d, rejected %d; want 0 and 1", sum.Verified, sum.Rejected)
	}
	if n := len(loadLedger(t, dir).Traces); n != 0 {
		t.Errorf("ledger holds %d traces, want none", n)
	}
	if c := loadState(t, dir).Cursors[p.URL+"/b/t/"]; c == nil || len(c.Retry) != 0 || c.LastSeenSeq != 1 {
		t.Errorf("cursor %+v: want seq 1 read and nothing to retry", c)
	}
	beat(t, dir, testNow.Add(cursorStep))
	if got := p.hitsOf("/b/t/traces/001-x.md"); got != 1 {
		t.Errorf("the refused file was asked %d times, want once", got)
	}
}

// TestQueuedTraceRefetchedForScoringStaysUnderThePeersBase: a trace
// queued in one heartbeat is fetched again when a later heartbeat scores
// it; if its path then redirects to another path of the same host, the
// fetch is refused by the rule the poll follows, nothing outside the
// peer's base is asked for and no validation is published.
func TestQueuedTraceRefetchedForScoringStaysUnderThePeersBase(t *testing.T) {
	p := newFakePeer(t)
	body := "# Queued\n\n## Work\n\nScored later.\n"
	p.publish("/b/t/", []string{"traces/001-q.md"}, map[string]string{"traces/001-q.md": body})
	p.serve("/outside/x.md", []byte(body))
	// Without standing (no FOUNDERS.md) the first heartbeat only queues.
	dir := newNode(t, [][2]string{{"peer", p.URL + "/b/t/"}}, "")
	if sum := beat(t, dir, testNow); sum.Queued != 1 || sum.ValidationsPublished != 0 {
		t.Fatalf("first heartbeat queued %d, published %d; want 1 and 0", sum.Queued, sum.ValidationsPublished)
	}
	p.handle("/b/t/traces/001-q.md", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/outside/x.md", http.StatusFound)
	})
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")

	sum := beat(t, dir, testNow.Add(cursorStep))
	if got := p.hitsOf("/b/t/traces/001-q.md"); got != 2 {
		t.Errorf("the queued trace was asked %d times, want twice (queued, then scored)", got)
	}
	if got := p.hitsOf("/outside/x.md"); got != 0 {
		t.Errorf("the path outside the peer's base was asked %d times, want never", got)
	}
	if sum.ValidationsPublished != 0 {
		t.Errorf("published %d validations of a trace fetched from outside the base, want 0", sum.ValidationsPublished)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, node.ValidationsDir)); len(entries) != 0 {
		t.Errorf("%d files in validations/, want none", len(entries))
	}
}

// cursorStep is the time between two heartbeats of a test.
const cursorStep = 30 * time.Minute

// agentsFile returns an AGENTS.md listing name → URL pairs.
func agentsFile(pairs ...[2]string) []byte {
	var b strings.Builder
	b.WriteString("# name | trace_url | joined\n")
	for _, p := range pairs {
		fmt.Fprintf(&b, "%s | %s | 2026-02-01\n", p[0], p[1])
	}
	return []byte(b.String())
}

// TestGossipCannotRebindAKnownName: a peer's AGENTS.md naming a known
// agent, ourselves or a look-alike of either at another URL is ignored,
// and nothing from that URL is ever fetched (issue 8, item 4).
func TestGossipCannotRebindAKnownName(t *testing.T) {
	good := newFakePeer(t)
	good.publish("/good1/", []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": "# A\n\n## Work\n\nMine.\n"})
	impostor := newFakePeer(t)
	for _, p := range []string{"/x/", "/y/", "/z/", "/w/"} {
		impostor.publish(p, []string{"traces/001-fake.md"}, map[string]string{"traces/001-fake.md": "# Fake\n\n## Work\n\nNot good1's.\n"})
	}
	newbie := newFakePeer(t)
	newbie.publish("/n/", []string{"traces/001-n.md"}, map[string]string{"traces/001-n.md": "# N\n\n## Work\n\nNew.\n"})
	gossip := newFakePeer(t)
	gossip.publish("/g/", nil, nil)
	gossip.serve("/g/AGENTS.md", agentsFile(
		[2]string{"good1", impostor.URL + "/x/"},  // a known name, another URL
		[2]string{"GOOD1", impostor.URL + "/y/"},  // the same name in capitals
		[2]string{"g00d1", impostor.URL + "/z/"},  // a look-alike
		[2]string{"tester", impostor.URL + "/w/"}, // our own name
		[2]string{"alias", good.URL + "/good1/"},  // a second name for a known URL
		[2]string{"newbie", newbie.URL + "/n/"},   // an honest newcomer
	))
	dir := newNode(t, [][2]string{{"good1", good.URL + "/good1/"}, {"gossip", gossip.URL + "/g/"}}, "")

	beat(t, dir, testNow)
	beat(t, dir, testNow.Add(cursorStep))

	for _, p := range []string{"/x/", "/y/", "/z/", "/w/"} {
		if n := impostor.hitsOf(p + "MANIFEST.md"); n != 0 {
			t.Errorf("impostor %s polled %d times", p, n)
		}
	}
	if newbie.hitsOf("/n/MANIFEST.md") == 0 {
		t.Error("the honest newcomer was never polled")
	}
	st := loadState(t, dir)
	names := map[string]string{}
	for url, c := range st.Cursors {
		if prev, dup := names[strings.ToLower(c.Agent)]; dup {
			t.Errorf("two cursors named %s: %s and %s", c.Agent, prev, url)
		}
		names[strings.ToLower(c.Agent)] = url
	}
	if names["good1"] != good.URL+"/good1/" {
		t.Errorf("good1 is at %q", names["good1"])
	}
	for _, tr := range loadLedger(t, dir).Traces {
		if strings.EqualFold(tr.Agent, "good1") && tr.AgentURL != good.URL+"/good1/" {
			t.Errorf("a trace of %s is attributed to good1", tr.AgentURL)
		}
	}
}

// TestLearnedImpostorIsForgotten: a node that learned an impostor of a
// known name before the binding rule (or whose person since listed the
// name at another URL) drops it with its ledger records, and the hashes it
// took are free to be fetched from the name's own URL.
func TestLearnedImpostorIsForgotten(t *testing.T) {
	body := "# A\n\n## Work\n\nMine.\n"
	good := newFakePeer(t)
	good.publish("/good1/", []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": body})
	impostor := newFakePeer(t)
	impostor.publish("/x/", []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": body})
	dir := newNode(t, [][2]string{{"good1", good.URL + "/good1/"}}, "gossip:\n  enabled: false\n")
	hash := manifest.HashBytes([]byte(body))
	st := state.New()
	c := st.Cursor(impostor.URL + "/x/")
	c.Agent, c.LearnedFrom, c.LastSeenSeq = "good1", "http://127.0.0.1:1/g/", 1
	st.MarkSeenFrom(impostor.URL+"/x/", hash, testNow.Add(-time.Hour))
	if _, err := st.Save(filepath.Join(dir, node.CursorsFile), time.Time{}); err != nil {
		t.Fatal(err)
	}
	l := ledger.New()
	l.AddTrace(&ledger.Trace{Agent: "good1", AgentURL: impostor.URL + "/x/", Seq: 1, Hash: hash, Verified: true})
	if _, err := l.Save(filepath.Join(dir, node.LedgerFile)); err != nil {
		t.Fatal(err)
	}

	beat(t, dir, testNow)
	if impostor.hitsOf("/x/MANIFEST.md") != 0 {
		t.Error("the impostor was polled")
	}
	if c := loadState(t, dir).Cursors[impostor.URL+"/x/"]; c != nil {
		t.Errorf("the impostor's cursor is kept: %+v", c)
	}
	tr := loadLedger(t, dir).Traces[hash]
	if tr == nil || tr.AgentURL != good.URL+"/good1/" || !tr.Verified {
		t.Errorf("the trace is %+v, want it good1's own, verified", tr)
	}
}

// TestValidationNamingAnotherValidatorCountsAsThePeers: the validator a
// file names is a claim; the ledger records the name bound to the URL the
// file came from.
func TestValidationNamingAnotherValidatorCountsAsThePeers(t *testing.T) {
	v := validation.Validation{
		Validator: "good1", ValidatorURL: "https://good1.example/t/",
		TraceURL: "https://x.example/t/traces/001.md", TraceHash: manifest.HashBytes([]byte("x")),
		ValidatedAt: testNow.Add(-time.Hour), Scores: validation.Scores{4, 4, 4, 4, 4, 4},
	}
	v.Total = v.Scores.Total()
	v.Result = validation.ResultFor(v.Total)
	p := newFakePeer(t)
	name := "validations/" + validation.FileName(v.TraceHash)
	p.publish("/m/", []string{name}, map[string]string{name: string(v.Format())})
	dir := newNode(t, [][2]string{{"mallory", p.URL + "/m/"}}, "")
	beat(t, dir, testNow)
	vals := loadLedger(t, dir).Validations
	if len(vals) != 1 {
		t.Fatalf("%d validations recorded, want 1", len(vals))
	}
	for _, got := range vals {
		if got.Validator != "mallory" || got.ValidatorURL != p.URL+"/m/" {
			t.Errorf("recorded as %s at %s, want mallory at the peer's URL", got.Validator, got.ValidatorURL)
		}
	}
}

// TestGossipFloodIsCappedPerPeer: one peer listing 3,000 agents adds at
// most maxLearnedPerPeer a heartbeat and maxLearnedFrom in all, even with
// the node-wide caps raised.
func TestGossipFloodIsCappedPerPeer(t *testing.T) {
	flood := newFakePeer(t)
	var beats atomic.Int64
	flood.handle("/f/MANIFEST.md", func(w http.ResponseWriter, r *http.Request) {
		// A new updated: time each heartbeat, so the node reads the gossip again.
		m := manifest.Manifest{Agent: "flood", Updated: testNow.Add(time.Duration(beats.Add(1)) * time.Minute)}
		w.Write(m.Format())
	})
	pairs := make([][2]string, 3000)
	for i := range pairs {
		pairs[i] = [2]string{fmt.Sprintf("bot%05d", i), fmt.Sprintf("%s/bots/%05d/", flood.URL, i)}
	}
	flood.serve("/f/AGENTS.md", agentsFile(pairs...))
	dir := newNode(t, [][2]string{{"flood", flood.URL + "/f/"}},
		"gossip:\n  max_new_peers_per_heartbeat: 10000\n  max_peers: 100000\n")
	learned := func() int {
		n := 0
		for _, c := range loadState(t, dir).Cursors {
			if c.LearnedFrom != "" {
				n++
			}
		}
		return n
	}
	sum := beat(t, dir, testNow)
	if sum.PeersLearned != maxLearnedPerPeer || learned() != maxLearnedPerPeer {
		t.Fatalf("first heartbeat learned %d (%d cursors), want %d", sum.PeersLearned, learned(), maxLearnedPerPeer)
	}
	for i := 1; i < 2*maxLearnedFrom/maxLearnedPerPeer; i++ {
		beat(t, dir, testNow.Add(time.Duration(i)*cursorStep))
	}
	if got := learned(); got != maxLearnedFrom {
		t.Errorf("learned %d peers from one peer in all, want %d", got, maxLearnedFrom)
	}
}

// TestOwnAgentsFileIsNeverFollowedThroughALink: an AGENTS.md that is a
// symbolic link (to .git/config, say) or larger than the site copies
// stops the heartbeat with an error naming it, before any peer is polled;
// its target is never read as the node's list of agents.
func TestOwnAgentsFileIsNeverFollowedThroughALink(t *testing.T) {
	p := newFakePeer(t)
	p.publish("/b/", []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": "# A\n\n## Work\n\nDone.\n"})
	for _, tt := range []struct {
		name string
		set  func(t *testing.T, dir string)
		want string
	}{
		{"a link", func(t *testing.T, dir string) {
			target := filepath.Join(t.TempDir(), "elsewhere.md")
			write(t, filepath.Dir(target), "elsewhere.md", "peer | "+p.URL+"/b/ | 2026-02-01\n")
			os.Remove(filepath.Join(dir, node.AgentsFile))
			if err := os.Symlink(target, filepath.Join(dir, node.AgentsFile)); err != nil {
				t.Fatal(err)
			}
		}, "refusing to read AGENTS.md is a symbolic link"},
		{"too large", func(t *testing.T, dir string) {
			write(t, dir, node.AgentsFile, "peer | "+p.URL+"/b/ | 2026-02-01\n"+strings.Repeat("#\n", node.MaxTopFileBytes/2))
		}, "read AGENTS.md: AGENTS.md is too large"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := newNode(t, nil, "")
			tt.set(t, dir)
			cfg, err := config.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Run(context.Background(), Options{Dir: dir, Config: cfg, Now: func() time.Time { return testNow },
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
			if got := p.hitsOf("/b/MANIFEST.md"); got != 0 {
				t.Errorf("the peer listed by the refused file was polled %d times", got)
			}
		})
	}
}

// TestLearnedSecondSpellingOfAURLIsForgotten: cursors learned before URLs
// had one canonical form (an escaped letter, a host's trailing dot) are a
// second name for a known URL: they are forgotten with their records and
// never polled, and the name's own URL is read.
func TestLearnedSecondSpellingOfAURLIsForgotten(t *testing.T) {
	body := "# A\n\n## Work\n\nMine.\n"
	good := newFakePeer(t)
	good.publish("/good1/", []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": body})
	dir := newNode(t, [][2]string{{"good1", good.URL + "/good1/"}}, "gossip:\n  enabled: false\n")
	port := strings.TrimPrefix(good.URL, "http://127.0.0.1")
	aliases := []string{good.URL + "/%67ood1/", "http://localhost." + port + "/good1/"}
	st := state.New()
	l := ledger.New()
	for i, a := range aliases {
		c := st.Cursor(a)
		c.Agent, c.LearnedFrom, c.LastSeenSeq = fmt.Sprint("alias", i), "http://127.0.0.1:1/g/", 1
		h := manifest.HashBytes([]byte(a))
		l.AddTrace(&ledger.Trace{Agent: c.Agent, AgentURL: a, Seq: 1, Hash: h, Verified: true})
	}
	if _, err := st.Save(filepath.Join(dir, node.CursorsFile), time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Save(filepath.Join(dir, node.LedgerFile)); err != nil {
		t.Fatal(err)
	}

	beat(t, dir, testNow)
	if got := good.hitsOf("/%67ood1/MANIFEST.md") + good.hitsOf("/good1/MANIFEST.md"); got != 1 {
		t.Errorf("good1's manifest was asked %d times, want once (under its own URL only)", got)
	}
	cursors := loadState(t, dir).Cursors
	for _, a := range aliases {
		if c := cursors[a]; c != nil {
			t.Errorf("the cursor of %s is kept: %+v", a, c)
		}
	}
	for _, tr := range loadLedger(t, dir).Traces {
		if tr.AgentURL != good.URL+"/good1/" {
			t.Errorf("ledger keeps %s's record %s", tr.AgentURL, tr.Hash)
		}
	}
}

// TestAURLListedTwiceKeepsItsFirstNameAndSaysSo: AGENTS.md naming one URL
// twice polls it once, under the first name, and warns of the second
// (roster.Parse skips the line; node.Snapshot.Known lists each URL once).
func TestAURLListedTwiceKeepsItsFirstNameAndSaysSo(t *testing.T) {
	p := newFakePeer(t)
	p.handle("/a/MANIFEST.md", staticManifest(legacyManifest("ada", 1, 1)))
	dir := newNode(t, [][2]string{{"ada", p.URL + "/a/"}, {"impostor", p.URL + "/a/"}}, "")
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	sum, err := Run(context.Background(), Options{Dir: dir, Config: cfg, Now: func() time.Time { return testNow },
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if sum.PeersPolled != 1 {
		t.Errorf("polled %d peers, want the URL once", sum.PeersPolled)
	}
	if !strings.Contains(logs.String(), `msg="AGENTS.md line skipped" line=3 reason="agent impostor: url already listed on line 2"`) {
		t.Errorf("no warning of the second name:\n%s", logs.String())
	}
	if c := loadState(t, dir).Cursors[p.URL+"/a/"]; c == nil || c.Agent != "ada" {
		t.Errorf("cursor %+v, want it under ada", c)
	}
}

// TestGossipedPrivateAddressIsPolledOnlyWhenTheOwnerSaysSo: with
// allow_private_addresses on for a LAN mesh, an agent a peer gossips on a
// private address (here 127.0.0.1, standing for 10.0.0.0/8 or a router) is
// not reached unless gossip.allow_private_addresses says so too.
func TestGossipedPrivateAddressIsPolledOnlyWhenTheOwnerSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config string
		polled bool
	}{
		{"by default", "", false},
		{"gossip.allow_private_addresses on", "gossip:\n  allow_private_addresses: true\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lan := newFakePeer(t)
			lan.publish("/lan/", []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": "# A\n\n## Work\n\nOn the LAN.\n"})
			inside := newFakePeer(t)
			inside.publish("/inside/", []string{"traces/001-i.md"}, map[string]string{"traces/001-i.md": "# I\n\n## Work\n\nInside.\n"})
			lan.serve("/lan/AGENTS.md", agentsFile([2]string{"inside", inside.URL + "/inside/"}))
			dir := newNode(t, [][2]string{{"lan", lan.URL + "/lan/"}}, "")
			write(t, dir, "mesh.yaml", "agent: tester\nurl: http://127.0.0.1:1/tester/\nallow_private_addresses: true\n"+tc.config)

			beat(t, dir, testNow)
			beat(t, dir, testNow.Add(cursorStep))

			if lan.hitsOf("/lan/MANIFEST.md") == 0 {
				t.Fatal("the agent of AGENTS.md on a private address was not polled")
			}
			hits := inside.hitsOf("/inside/MANIFEST.md") + inside.hitsOf("/robots.txt")
			if (hits > 0) != tc.polled {
				t.Errorf("the gossiped agent on a private address was reached %d times, want polled %v", hits, tc.polled)
			}
		})
	}
}
