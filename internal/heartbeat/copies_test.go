package heartbeat

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// publishSeqs serves a manifest under base listing the given rows (seq →
// file, body), with sequence the highest seq ever published, and the
// files themselves.
func (p *fakePeer) publishSeqs(base string, sequence manifest.Seq, rows map[manifest.Seq][2]string) {
	m := manifest.Manifest{Agent: "peer", Sequence: sequence}
	for seq := manifest.Seq(1); seq <= sequence; seq++ {
		r, ok := rows[seq]
		if !ok {
			continue
		}
		m.Entries = append(m.Entries, manifest.Entry{Seq: seq, Hash: manifest.HashBytes([]byte(r[1])), File: r[0], Type: "knowledge", Status: "pending"})
		p.serve(base+r[0], []byte(r[1]))
	}
	p.serve(base+"MANIFEST.md", m.Format())
}

func loadCopies(t *testing.T, dir string) *copies.Copies {
	t.Helper()
	c, err := copies.Load(filepath.Join(dir, node.CopiesFile))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readCopies returns every file of mesh-state/copies/ by name.
func readCopies(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	d := filepath.Join(dir, statefile.Dir(node.CopiesFile))
	entries, _ := os.ReadDir(d)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(d, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

const (
	frontMatterTrace = "---\ntitle: Fronted\ntype: knowledge\n---\n# Fronted\n\nA body \x1b[31mwith an escape\r\n"
	plainTrace       = "# Plain\n\nPlain words.\n"
)

func TestHeartbeatKeepsACleanBoundedCopyOfEachVerifiedTrace(t *testing.T) {
	long := "# Long\n\n" + strings.Repeat(strings.Repeat("w", 79)+"\n", copies.MaxTextBytes/80+10)
	p := newFakePeer(t)
	p.publishSeqs("/beta/", 3, map[manifest.Seq][2]string{
		1: {"traces/fronted.md", frontMatterTrace}, 2: {"traces/long.md", long}, 3: {"traces/plain.md", plainTrace},
	})
	dir := newNode(t, [][2]string{{"beta", p.URL + "/beta/"}}, "")
	beat(t, dir, testNow)
	c := loadCopies(t, dir)
	if len(c.ByHash) != 3 {
		t.Fatalf("%d copies, want 3", len(c.ByHash))
	}
	fronted := c.ByHash[manifest.HashBytes([]byte(frontMatterTrace))]
	if fronted == nil || strings.Contains(fronted.Text, "title:") || strings.ContainsAny(fronted.Text, "\x1b\r") {
		t.Errorf("copy of the fronted trace = %+v, want its body without front matter or controls", fronted)
	}
	lc := c.ByHash[manifest.HashBytes([]byte(long))]
	if lc == nil || !lc.Cut || len(lc.Text) > copies.MaxTextBytes || !strings.HasSuffix(lc.Text, "\n") {
		t.Errorf("copy of the long trace: cut %v, %d bytes; want cut at a line within %d", lc != nil && lc.Cut, len(lc.Text), copies.MaxTextBytes)
	}
	before := readCopies(t, dir)
	beat(t, dir, testNow.Add(cursorStep))
	if after := readCopies(t, dir); len(after) != 1 || after[first(after)] != before[first(before)] {
		t.Errorf("an idle heartbeat changed the copies")
	}
}

func first(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}

// TestTraceItsAuthorRemovesIsTakenDown: a trace its author's MANIFEST.md
// no longer lists loses its copy and is marked withdrawn at the next
// heartbeat; listed again, it is no longer withdrawn.
func TestTraceItsAuthorRemovesIsTakenDown(t *testing.T) {
	p := newFakePeer(t)
	rows := map[manifest.Seq][2]string{1: {"traces/fronted.md", frontMatterTrace}, 2: {"traces/plain.md", plainTrace}}
	p.publishSeqs("/beta/", 2, rows)
	dir := newNode(t, [][2]string{{"beta", p.URL + "/beta/"}}, "")
	beat(t, dir, testNow)
	gone := manifest.HashBytes([]byte(frontMatterTrace))
	if loadCopies(t, dir).ByHash[gone] == nil {
		t.Fatal("no copy taken")
	}
	p.publishSeqs("/beta/", 2, map[manifest.Seq][2]string{2: rows[2]})
	beat(t, dir, testNow.Add(cursorStep))
	c, l := loadCopies(t, dir), loadLedger(t, dir)
	if c.ByHash[gone] != nil || l.Traces[gone].TakenDown != ledger.Withdrawn {
		t.Errorf("removed trace: copy kept %v, taken down %q; want no copy, withdrawn", c.ByHash[gone] != nil, l.Traces[gone].TakenDown)
	}
	if kept := manifest.HashBytes([]byte(plainTrace)); c.ByHash[kept] == nil || l.Traces[kept].TakenDown != "" {
		t.Errorf("the trace still listed lost its copy or was taken down")
	}
	p.publishSeqs("/beta/", 2, rows)
	beat(t, dir, testNow.Add(2*cursorStep))
	if got := loadLedger(t, dir).Traces[gone].TakenDown; got != "" {
		t.Errorf("listed again, the trace is still taken down: %q", got)
	}
}

// TestDisputedTraceLosesItsCopy: a dispute that counts takes a trace's
// copy down: one by a peer with standing (a founder), or by the trace's
// own author; a hostile peer without standing takes nothing down.
func TestDisputedTraceLosesItsCopy(t *testing.T) {
	for _, tc := range []struct {
		name, reporter, founders, want string
	}{
		{"peer with standing", "beta", "beta | %s/beta/\n", ledger.Disputed},
		{"the trace's author", "gamma", "", ledger.Disputed},
		{"peer without standing", "beta", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newFakePeer(t)
			p.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/x.md", plainTrace}})
			disputed := manifest.HashBytes([]byte(plainTrace))
			d := strings.Replace(peersDispute, "sha256:"+zeros, string(disputed), 1)
			rows := [][4]string{{"disputes/dispute-" + disputed.Hex(12) + ".md", d, "dispute", "published"}}
			if tc.reporter == "gamma" {
				rows = append([][4]string{{"traces/x.md", plainTrace, "knowledge", "pending"}}, rows...)
			}
			p.publishRows("/"+tc.reporter+"/", rows)
			peers := [][2]string{{"gamma", p.URL + "/gamma/"}}
			if tc.reporter != "gamma" {
				peers = append(peers, [2]string{tc.reporter, p.URL + "/" + tc.reporter + "/"})
			}
			dir := newNode(t, peers, "")
			if tc.founders != "" {
				write(t, dir, node.FoundersFile, fmt.Sprintf(tc.founders, p.URL))
			}
			beat(t, dir, testNow)
			if got := loadLedger(t, dir).Traces[disputed].TakenDown; got != tc.want {
				t.Errorf("taken down %q, want %q", got, tc.want)
			}
			if kept := loadCopies(t, dir).ByHash[disputed] != nil; kept != (tc.want == "") {
				t.Errorf("copy kept %v, want %v", kept, tc.want == "")
			}
		})
	}
}

func TestListingKeepsArchivedSeqsAndTrustsNoManifestWithSkippedLines(t *testing.T) {
	m := &manifest.Manifest{Entries: []manifest.Entry{{Seq: 9, Hash: manifest.HashBytes([]byte("nine"))}},
		Archives: []manifest.Archive{{First: 1, Last: 5}}}
	l := listingOf(m)
	for _, tc := range []struct {
		name string
		t    ledger.Trace
		want bool
	}{
		{"listed row", ledger.Trace{Seq: 9, Hash: manifest.HashBytes([]byte("nine"))}, true},
		{"archived seq", ledger.Trace{Seq: 3, Hash: manifest.HashBytes([]byte("three"))}, true},
		{"removed", ledger.Trace{Seq: 7, Hash: manifest.HashBytes([]byte("seven"))}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := l.lists(&tc.t); got != tc.want {
				t.Errorf("lists = %v, want %v", got, tc.want)
			}
		})
	}
	if listingOf(nil) != nil {
		t.Error("no manifest read whole gave a listing")
	}
}

// TestManifestWithSkippedLinesTakesNothingDown: a MANIFEST.md with a line
// the parser skipped cannot tell a row removed from one it could not
// read, so a trace it no longer lists keeps its copy.
func TestManifestWithSkippedLinesTakesNothingDown(t *testing.T) {
	p := newFakePeer(t)
	base := p.URL + "/beta/"
	row := func(seq manifest.Seq, file, body string) manifest.Entry {
		return manifest.Entry{Seq: seq, Hash: manifest.HashBytes([]byte(body)), File: file, Type: "knowledge", Status: "pending"}
	}
	p.serve("/beta/traces/fronted.md", []byte(frontMatterTrace))
	p.serve("/beta/traces/plain.md", []byte(plainTrace))
	m := manifest.Manifest{Agent: "beta", URL: base, Sequence: 2,
		Entries: []manifest.Entry{row(1, "traces/fronted.md", frontMatterTrace), row(2, "traces/plain.md", plainTrace)}}
	p.serve("/beta/MANIFEST.md", m.Format())
	dir := newNode(t, [][2]string{{"beta", base}}, "")
	beat(t, dir, testNow)
	gone := manifest.HashBytes([]byte(frontMatterTrace))
	if loadCopies(t, dir).ByHash[gone] == nil {
		t.Fatal("no copy taken")
	}
	m.Entries = m.Entries[1:]
	p.serve("/beta/MANIFEST.md", append(m.Format(), []byte("| 1 | not a hash | traces/fronted.md |\n")...))
	beat(t, dir, testNow.Add(cursorStep))
	if got := loadLedger(t, dir).Traces[gone].TakenDown; got != "" || loadCopies(t, dir).ByHash[gone] == nil {
		t.Errorf("a manifest with a skipped line took the trace down: %q", got)
	}
}

// TestPeersPagesLineIsKeptInItsCursor: where a peer says its pages are
// is read with its MANIFEST.md, for the site to link them.
func TestPeersPagesLineIsKeptInItsCursor(t *testing.T) {
	p := newFakePeer(t)
	base := p.URL + "/beta/"
	m := manifest.Manifest{Agent: "beta", URL: base, Sequence: 1, Pages: base + manifest.PageStem + ".html",
		Entries: []manifest.Entry{{Seq: 1, Hash: manifest.HashBytes([]byte(plainTrace)), File: "traces/plain.md", Type: "knowledge", Status: "pending"}}}
	p.serve("/beta/traces/plain.md", []byte(plainTrace))
	p.serve("/beta/MANIFEST.md", m.Format())
	dir := newNode(t, [][2]string{{"beta", base}}, "")
	beat(t, dir, testNow)
	if got := loadState(t, dir).Cursors[base].Pages; got != m.Pages {
		t.Errorf("cursor pages = %q, want %q", got, m.Pages)
	}
}

func TestWhichDisputesTakeATraceDown(t *testing.T) {
	standing := func(url string) bool { return url == "https://founder.example/" }
	const author, other = "https://author.example/", "https://other.example/"
	h := manifest.HashBytes([]byte(plainTrace))
	tr := &ledger.Trace{Agent: "author", AgentURL: author, Hash: h}
	// about stands in for signal.DisputedAgents, which has its own test:
	// a dispute is about whom its agent_url names.
	about := func(d *ledger.Dispute, t *ledger.Trace) bool { return d.AgentURL == t.AgentURL }
	by := func(reporter, agent string) *ledger.Dispute {
		return &ledger.Dispute{ReporterURL: reporter, AgentURL: agent}
	}
	for _, tc := range []struct {
		name string
		d    *disputers
		want bool
	}{
		{"no dispute", nil, false},
		{"ours", &disputers{ours: []*ledger.Rejection{{AgentURL: author, ClaimedHash: h}}}, true},
		{"ours of another agent's file claiming its hash", &disputers{ours: []*ledger.Rejection{{AgentURL: other, ClaimedHash: h}}}, false},
		{"its author's", &disputers{peers: []*ledger.Dispute{by(author, author)}}, true},
		{"its author's of another agent", &disputers{peers: []*ledger.Dispute{by(author, other)}}, false},
		{"an agent's with standing", &disputers{peers: []*ledger.Dispute{by("https://x.example/", author), by("https://founder.example/", author)}}, true},
		{"an agent's with standing of another agent", &disputers{peers: []*ledger.Dispute{by("https://founder.example/", other)}}, false},
		{"only agents without standing", &disputers{peers: []*ledger.Dispute{by("https://x.example/", author), by("https://y.example/", author)}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.counts(tr, about, standing); got != tc.want {
				t.Errorf("counts = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCopiesOfTracesSeenBeforeAreBackfilled: a node that holds no copy
// of traces it verified earlier (seen before it kept copies) fetches
// them again, at most copyBackfill a heartbeat, newest first, and keeps
// the copy of each whose bytes still hash to what the MANIFEST listed:
// the same copy the first fetch made.
func TestCopiesOfTracesSeenBeforeAreBackfilled(t *testing.T) {
	const total = copyBackfill + 10
	p := newFakePeer(t)
	rows := map[manifest.Seq][2]string{}
	for seq := manifest.Seq(1); seq <= total; seq++ {
		rows[seq] = [2]string{fmt.Sprintf("traces/t%d.md", seq), fmt.Sprintf("# Trace %d\n\nWords of trace %d.\n", seq, seq)}
	}
	p.publishSeqs("/beta/", total, rows)
	dir := newNode(t, [][2]string{{"beta", p.URL + "/beta/"}}, "")
	beat(t, dir, testNow)
	first := loadCopies(t, dir).ByHash
	if len(first) != total {
		t.Fatalf("%d copies after the first heartbeat, want %d", len(first), total)
	}
	if err := os.RemoveAll(filepath.Join(dir, statefile.Dir(node.CopiesFile))); err != nil {
		t.Fatal(err)
	}
	// The newest trace's file now serves other bytes: it gets no copy.
	p.serve("/beta/traces/t60.md", []byte("# Rewritten\n"))
	changed := manifest.HashBytes([]byte(rows[total][1]))

	beat(t, dir, testNow.Add(30*time.Minute))
	got := loadCopies(t, dir).ByHash
	if len(got) != copyBackfill-1 {
		t.Errorf("%d copies after one heartbeat, want %d (%d fetched, one of them changed)", len(got), copyBackfill-1, copyBackfill)
	}
	for seq := manifest.Seq(total - copyBackfill + 1); seq < total; seq++ {
		h := manifest.HashBytes([]byte(rows[seq][1]))
		if got[h] == nil || *got[h] != *first[h] {
			t.Errorf("seq %d: backfilled copy %+v, want %+v", seq, got[h], first[h])
		}
	}
	if p.hitsOf("/beta/traces/t1.md") != 1 {
		t.Errorf("the oldest trace was fetched %d times, want once (older ones wait for the next heartbeat)", p.hitsOf("/beta/traces/t1.md"))
	}

	beat(t, dir, testNow.Add(time.Hour))
	got = loadCopies(t, dir).ByHash
	if len(got) != total-1 || got[changed] != nil {
		t.Errorf("%d copies after two heartbeats (changed one kept: %v), want %d", len(got), got[changed] != nil, total-1)
	}
}

// TestTraceIsRepublishedWhenItsDisputerLosesStanding: which disputes take
// a trace down is decided again at every heartbeat, so once its only
// disputer has no standing the trace is republished and its copy
// fetched again.
func TestTraceIsRepublishedWhenItsDisputerLosesStanding(t *testing.T) {
	p := newFakePeer(t)
	p.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/x.md", plainTrace}})
	disputed := manifest.HashBytes([]byte(plainTrace))
	d := strings.Replace(peersDispute, "sha256:"+zeros, string(disputed), 1)
	p.publishRows("/beta/", [][4]string{{"disputes/dispute-" + disputed.Hex(12) + ".md", d, "dispute", "published"}})
	dir := newNode(t, [][2]string{{"gamma", p.URL + "/gamma/"}, {"beta", p.URL + "/beta/"}}, "")
	write(t, dir, node.FoundersFile, "beta | "+p.URL+"/beta/\n")
	beat(t, dir, testNow)
	if got := loadLedger(t, dir).Traces[disputed].TakenDown; got != ledger.Disputed {
		t.Fatalf("taken down %q while its disputer has standing, want %q", got, ledger.Disputed)
	}
	if err := os.Remove(filepath.Join(dir, node.FoundersFile)); err != nil {
		t.Fatal(err)
	}
	beat(t, dir, testNow.Add(30*time.Minute))
	if got := loadLedger(t, dir).Traces[disputed].TakenDown; got != "" {
		t.Errorf("taken down %q once its disputer has no standing, want republished", got)
	}
	if loadCopies(t, dir).ByHash[disputed] == nil {
		t.Error("the republished trace's copy was not fetched again")
	}
}
