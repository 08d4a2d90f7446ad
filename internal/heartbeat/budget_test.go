package heartbeat

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/slowtest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// staticManifest serves body as a manifest that never changes, with an ETag
// honoured by If-None-Match, as GitHub Pages does: a node that relies on a
// changed manifest to go on reading gets 304 for ever.
func staticManifest(body []byte) http.HandlerFunc {
	etag := `"` + manifest.HashBytes(body).Hex(16) + `"`
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write(body)
	}
}

// bigPeer publishes n small traces under base with a manifest that never
// changes.
func bigPeer(t *testing.T, base string, n int) *fakePeer {
	t.Helper()
	p := newFakePeer(t)
	m := manifest.Manifest{Agent: "big", Sequence: manifest.Seq(n)}
	for seq := 1; seq <= n; seq++ {
		name := fmt.Sprintf("traces/%05d.md", seq)
		body := []byte(fmt.Sprintf("# Trace %d\n\n## Work\n\nDone %d.\n", seq, seq))
		p.serve(base+name, body)
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes(body), File: name, Type: "knowledge", Status: "validated"})
	}
	p.handle(base+"MANIFEST.md", staticManifest(m.Format()))
	return p
}

// TestLargePeerIsReadInFullWithoutChangingItsManifest: a peer listing more
// than one heartbeat's budget is read in full in the heartbeats that
// follow, though its manifest never changes (issue 8, item 9).
func TestLargePeerIsReadInFullWithoutChangingItsManifest(t *testing.T) {
	t.Parallel()
	const n = 6000
	p := bigPeer(t, "/big/", n)
	dir := newNode(t, [][2]string{{"big", p.URL + "/big/"}}, "gossip:\n  enabled: false\n")
	url := p.URL + "/big/"

	sum := beat(t, dir, testNow)
	c := loadState(t, dir).Cursors[url]
	if sum.Verified != maxEntriesPerPoll || c.LastSeenSeq != maxEntriesPerPoll || !c.Backlog {
		t.Fatalf("first heartbeat: verified %d, cursor %d, backlog %v; want %d, %d, true", sum.Verified, c.LastSeenSeq, c.Backlog, maxEntriesPerPoll, maxEntriesPerPoll)
	}
	sum = beat(t, dir, testNow.Add(cursorStep))
	c = loadState(t, dir).Cursors[url]
	if sum.Verified != n-maxEntriesPerPoll || c.LastSeenSeq != n || c.Backlog {
		t.Fatalf("second heartbeat: verified %d, cursor %d, backlog %v; want %d, %d, false", sum.Verified, c.LastSeenSeq, c.Backlog, n-maxEntriesPerPoll, n)
	}
	sum = beat(t, dir, testNow.Add(2*cursorStep))
	if sum.Verified != 0 || p.hitsOf("/big/MANIFEST.md") != 3 {
		t.Errorf("third heartbeat: verified %d, manifest asked %d times; want 0 and 3", sum.Verified, p.hitsOf("/big/MANIFEST.md"))
	}
	if got := len(loadLedger(t, dir).Traces); got != n {
		t.Errorf("ledger holds %d traces, want all %d", got, n)
	}
}

// legacyManifest lists rows seqs from..to without a file column, as the
// seed's oldest layout does: rows that cost nothing to list and can never
// be verified.
func legacyManifest(agent string, from, to int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Manifest — %s\n\n| Trace | Date | Type | Category | Hash | Status |\n|---|---|---|---|---|---|\n", agent)
	for seq := from; seq <= to; seq++ {
		fmt.Fprintf(&b, "| %03d | 2026-01-30 | knowledge | rock | %s | pending |\n", seq, manifest.HashBytes([]byte(agent+fmt.Sprint(seq))))
	}
	return []byte(b.String())
}

// TestLegacyRowsAreRecordedWithinTheBudget: peers listing ten thousand
// rows without a file column add at most maxUnverifiedPerPoll ledger
// entries each per heartbeat, and the rest in the heartbeats after, though
// the manifests never change (issue 8, item 8).
func TestLegacyRowsAreRecordedWithinTheBudget(t *testing.T) {
	t.Parallel()
	const peers, rows = 2, 10_000
	var list [][2]string
	for i := range peers {
		p := newFakePeer(t)
		p.handle("/l/MANIFEST.md", staticManifest(legacyManifest(fmt.Sprint("legacy", i), 1, rows)))
		list = append(list, [2]string{fmt.Sprint("legacy", i), p.URL + "/l/"})
	}
	dir := newNode(t, list, "gossip:\n  enabled: false\n")
	for beatN := 1; beatN <= 2; beatN++ {
		beat(t, dir, testNow.Add(time.Duration(beatN-1)*cursorStep))
		l := loadLedger(t, dir)
		if got, want := len(l.Traces), peers*maxUnverifiedPerPoll*beatN; got != want {
			t.Errorf("heartbeat %d: ledger holds %d unverified rows, want %d", beatN, got, want)
		}
		_, files, err := statefile.Read(filepath.Join(dir, node.LedgerFile))
		if err != nil {
			t.Fatal(err)
		}
		size := 0
		for _, data := range files {
			size += len(data)
		}
		if size > 20<<20 {
			t.Errorf("heartbeat %d: ledger is %d bytes, want under 20 MB", beatN, size)
		}
		for url, c := range loadState(t, dir).Cursors {
			if c.LastSeenSeq != manifest.Seq(maxUnverifiedPerPoll*beatN) || !c.Backlog {
				t.Errorf("heartbeat %d: %s cursor %d backlog %v", beatN, url, c.LastSeenSeq, c.Backlog)
			}
		}
	}
}

// liarPeer serves under /liar/ a MANIFEST.md of rows files, each served
// with bytes other than the hash its row claims.
func liarPeer(t *testing.T, rows int) *fakePeer {
	t.Helper()
	p := newFakePeer(t)
	m := manifest.Manifest{Agent: "liar", Sequence: manifest.Seq(rows)}
	for seq := 1; seq <= rows; seq++ {
		name := fmt.Sprintf("traces/%04d.md", seq)
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes([]byte(fmt.Sprint("claimed", seq))), File: name, Type: "knowledge", Status: "pending"})
		p.serve("/liar/"+name, []byte(fmt.Sprint("served", seq)))
	}
	p.handle("/liar/MANIFEST.md", staticManifest(m.Format()))
	return p
}

// TestMismatchesAreDisputedWithinTheBudget: a peer listing thousands of
// files whose bytes do not match makes us publish at most
// maxDisputesPerPoll disputes a heartbeat, and the rest later (issue 8,
// item 8).
func TestMismatchesAreDisputedWithinTheBudget(t *testing.T) {
	const rows = 3000
	p := liarPeer(t, rows)
	dir := newNode(t, [][2]string{{"liar", p.URL + "/liar/"}}, "gossip:\n  enabled: false\n")
	for beatN := 1; beatN <= 2; beatN++ {
		sum := beat(t, dir, testNow.Add(time.Duration(beatN-1)*cursorStep))
		if sum.DisputesPublished != maxDisputesPerPoll {
			t.Errorf("heartbeat %d: %d disputes published, want %d", beatN, sum.DisputesPublished, maxDisputesPerPoll)
		}
		disputes, _ := os.ReadDir(filepath.Join(dir, node.DisputesDir))
		if len(disputes) != beatN*maxDisputesPerPoll {
			t.Errorf("heartbeat %d: %d dispute files, want %d", beatN, len(disputes), beatN*maxDisputesPerPoll)
		}
		if got := len(loadLedger(t, dir).Rejected); got != beatN*maxDisputesPerPoll {
			t.Errorf("heartbeat %d: %d rejections in the ledger, want %d", beatN, got, beatN*maxDisputesPerPoll)
		}
	}
	own, err := os.ReadFile(filepath.Join(dir, node.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(own), "disputes/"); got != 2*maxDisputesPerPoll {
		t.Errorf("our MANIFEST lists %d disputes, want %d", got, 2*maxDisputesPerPoll)
	}
	files, _ := os.ReadDir(filepath.Join(dir, node.DisputesDir))
	data, err := os.ReadFile(filepath.Join(dir, node.DisputesDir, files[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	if d, err := dispute.Parse(data); err != nil || d.Agent != "liar" || d.AgentURL != p.URL+"/liar/" {
		t.Errorf("dispute names %+v (%v), want liar at the URL it was polled at", d, err)
	}
	if fetched := p.hitsOf("/liar/traces/0100.md"); fetched != 0 {
		t.Errorf("row 100 was fetched %d times in two heartbeats; the budget should stop near row 20", fetched)
	}
}

// TestLegacyRowsStopAtTheLedgersShareOfOnePeer: however many heartbeats go
// by, the ledger keeps at most maxUnverifiedPerPeer rows without a file of
// one peer, and the cursor still reaches the end of its manifest.
func TestLegacyRowsStopAtTheLedgersShareOfOnePeer(t *testing.T) {
	const rows = maxUnverifiedPerPeer + 2*maxUnverifiedPerPoll
	p := newFakePeer(t)
	p.handle("/l/MANIFEST.md", staticManifest(legacyManifest("legacy", 1, rows)))
	dir := newNode(t, [][2]string{{"legacy", p.URL + "/l/"}}, "gossip:\n  enabled: false\n")
	beats := rows / maxUnverifiedPerPoll
	for i := range beats + 1 {
		beat(t, dir, testNow.Add(time.Duration(i)*cursorStep))
	}
	if got := len(loadLedger(t, dir).Traces); got != maxUnverifiedPerPeer {
		t.Errorf("ledger keeps %d rows without a file, want %d", got, maxUnverifiedPerPeer)
	}
	if c := loadState(t, dir).Cursors[p.URL+"/l/"]; c.LastSeenSeq != rows || c.Backlog {
		t.Errorf("cursor %d backlog %v, want %d and none", c.LastSeenSeq, c.Backlog, rows)
	}
}

// largePeer publishes n distinct files of size bytes under base, behind a
// manifest that never changes. Bodies are made on each request, so the
// test holds only their hashes.
func largePeer(t *testing.T, name, base string, n, size int) *fakePeer {
	t.Helper()
	p := newFakePeer(t)
	body := func(seq int) []byte {
		b := []byte(fmt.Sprintf("# %s %d\n\n## Work\n\n", name, seq))
		line := []byte(fmt.Sprintf("Line of %s's file %d.\n", name, seq))
		for len(b)+len(line) <= size {
			b = append(b, line...)
		}
		return b
	}
	m := manifest.Manifest{Agent: name, Sequence: manifest.Seq(n)}
	for seq := 1; seq <= n; seq++ {
		file := fmt.Sprintf("traces/%03d.md", seq)
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes(body(seq)), File: file, Type: "knowledge", Status: "pending"})
		p.handle(base+file, func(w http.ResponseWriter, r *http.Request) { w.Write(body(seq)) })
	}
	p.handle(base+"MANIFEST.md", staticManifest(m.Format()))
	return p
}

// TestPeersShareOneHeartbeatsBudget: several peers, each within its own
// budget, together hold at most maxHeldBytes of files at once and add at
// most maxUnverifiedPerHeartbeat rows without a file per heartbeat; the
// rest is carried to the next heartbeats, which read every peer in full
// though no manifest changes. Files are handed on once taken, so more
// than maxHeldBytes of them are read in the first heartbeat (all 96 MiB
// on an idle machine; they once stayed in memory until it ended, and
// took two), and nothing is held when it ends.
func TestPeersShareOneHeartbeatsBudget(t *testing.T) {
	const (
		large, files, size = 4, 24, 1 << 20 // 96 MiB in all, 24 MiB a peer
		legacy, rows       = 5, 1000        // 5,000 rows, 500 a peer a heartbeat
	)
	var list [][2]string
	for i := range large {
		name := fmt.Sprint("large", i)
		p := largePeer(t, name, "/l/", files, size)
		list = append(list, [2]string{name, p.URL + "/l/"})
	}
	for i := range legacy {
		p := newFakePeer(t)
		p.handle("/o/MANIFEST.md", staticManifest(legacyManifest(fmt.Sprint("legacy", i), 1, rows)))
		list = append(list, [2]string{fmt.Sprint("legacy", i), p.URL + "/o/"})
	}
	// A deadline far off, so that only the budgets cut a poll, however
	// slow the machine (the race detector under load took minutes).
	dir := newNode(t, list, "gossip:\n  enabled: false\nheartbeat:\n  deadline: 6h\n  request_timeout: 10m\n")
	count := func() (files, unverified int) {
		for _, tr := range loadLedger(t, dir).Traces {
			if tr.File == "" {
				unverified++
			} else {
				files++
			}
		}
		return
	}
	prevFiles, prevRows := 0, 0
	beats := 0
	for ; beats < 8; beats++ {
		held, peak := beatWatched(t, dir, testNow.Add(time.Duration(beats)*cursorStep), nil)
		f, u := count()
		if peak > maxHeldBytes || held != 0 {
			t.Errorf("heartbeat %d held %d bytes of files at most and %d at its end, want at most maxHeldBytes %d and 0", beats+1, peak, held, maxHeldBytes)
		}
		if beats == 0 && int64(f)*size <= maxHeldBytes {
			t.Errorf("the first heartbeat read %d of %d files, no more than maxHeldBytes holds: files are held, not handed on", f, large*files)
		}
		if u-prevRows > maxUnverifiedPerHeartbeat {
			t.Errorf("heartbeat %d recorded %d rows without a file, over %d", beats+1, u-prevRows, maxUnverifiedPerHeartbeat)
		}
		if f == prevFiles && u == prevRows && (f < large*files || u < legacy*rows) {
			t.Fatalf("heartbeat %d read nothing though %d files and %d rows are left: stalled", beats+1, large*files-f, legacy*rows-u)
		}
		t.Logf("beat %d: files %d rows %d", beats+1, f, u)
		prevFiles, prevRows = f, u
		if f == large*files && u == legacy*rows {
			break
		}
	}
	if prevFiles != large*files || prevRows != legacy*rows {
		t.Fatalf("after %d heartbeats the ledger holds %d of %d files and %d of %d rows", beats+1, prevFiles, large*files, prevRows, legacy*rows)
	}
	// 96 MiB at under 64 MiB a heartbeat, 5,000 rows at 2,000: three
	// heartbeats at least, and the budget is used, not wasted.
	if beats+1 < 3 || beats+1 > 4 {
		t.Errorf("read in %d heartbeats, want 3 or 4", beats+1)
	}
	for url, c := range loadState(t, dir).Cursors {
		if c.Backlog || len(c.Retry) != 0 {
			t.Errorf("%s: backlog %v, retry %v after reading everything", url, c.Backlog, c.Retry)
		}
	}
}

// TestDisputesOfOnePeerStopAtTheirLifetimeBound: a peer that keeps listing
// wrong hashes gets at most maxDisputesPerPeer disputes from us in all
// (bb3f4e4 published 10 a heartbeat for ever: 7,500 files from five such
// peers in 150 heartbeats); past it the summary says what was held back.
func TestDisputesOfOnePeerStopAtTheirLifetimeBound(t *testing.T) {
	const rows = 40
	p := liarPeer(t, rows)
	url := p.URL + "/liar/"
	dir := newNode(t, [][2]string{{"liar", url}}, "gossip:\n  enabled: false\n")
	// The node already published all but 5 of the disputes it gives one
	// peer, and one about another peer, which does not count.
	for i := range maxDisputesPerPeer - 5 {
		claimed := manifest.HashBytes([]byte(fmt.Sprint("old", i)))
		d := dispute.Dispute{Reporter: "tester", ReporterURL: "http://127.0.0.1:1/tester/", Agent: "liar", AgentURL: url,
			FileURL: url + "traces/old.md", Seq: manifest.Seq(1000 + i), ClaimedHash: claimed, ServedHash: manifest.HashBytes([]byte("x")), ObservedAt: testNow}
		write(t, dir, node.DisputesDir+"/"+dispute.FileName(claimed), string(d.Format()))
	}
	sum := beat(t, dir, testNow)
	if sum.DisputesPublished != 5 {
		t.Errorf("%d disputes published, want the 5 left of %d", sum.DisputesPublished, maxDisputesPerPeer)
	}
	if len(sum.HeldBack) != 1 || sum.HeldBack[0].URL != url || sum.HeldBack[0].Count != maxDisputesPerPoll-5 {
		t.Errorf("held back %+v, want %d mismatches of %s", sum.HeldBack, maxDisputesPerPoll-5, url)
	}
	for i := 1; i <= 3; i++ {
		if sum := beat(t, dir, testNow.Add(time.Duration(i)*cursorStep)); sum.DisputesPublished != 0 {
			t.Errorf("heartbeat %d published %d more disputes", i+1, sum.DisputesPublished)
		}
	}
	disputes, _ := os.ReadDir(filepath.Join(dir, node.DisputesDir))
	if len(disputes) != maxDisputesPerPeer {
		t.Errorf("%d dispute files, want %d", len(disputes), maxDisputesPerPeer)
	}
	if got := len(loadLedger(t, dir).Rejected); got != 5 {
		t.Errorf("%d rejections in the ledger, want the 5 disputed", got)
	}
	if c := loadState(t, dir).Cursors[url]; c.LastSeenSeq != rows {
		t.Errorf("cursor at %d, want %d: mismatches past the bound are passed over, not carried", c.LastSeenSeq, rows)
	}
}

// TestScoredBodiesAreHandedOn: a founder catches up with 20 MiB of pending
// traces in one heartbeat and scores them all; the bytes of the traces
// it keeps for scoring stay within maxKeptBytes, the others are fetched
// again when scored, and nothing is held when the heartbeat ends. Slow:
// it scores 20 MiB of text.
func TestScoredBodiesAreHandedOn(t *testing.T) {
	slowtest.Require(t)
	const peers, files, size = 2, 10, 1 << 20
	var list [][2]string
	for i := range peers {
		name := fmt.Sprint("large", i)
		p := largePeer(t, name, "/l/", files, size)
		list = append(list, [2]string{name, p.URL + "/l/"})
	}
	dir := newNode(t, list, "gossip:\n  enabled: false\n")
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	var sum *report.Summary
	held, peak := beatWatched(t, dir, testNow, &sum)
	if sum.Verified != peers*files || sum.ValidationsPublished != peers*files {
		t.Fatalf("verified %d and published %d validations, want %d and %d", sum.Verified, sum.ValidationsPublished, peers*files, peers*files)
	}
	if peak > maxHeldBytes || held != 0 {
		t.Errorf("held %d bytes of files at most and %d at the end, want at most %d and 0", peak, held, maxHeldBytes)
	}
	kept := int(maxKeptBytes / size)
	// Each peer: its robots.txt, MANIFEST.md and IDENTITY.md (read at
	// first contact, to find a signed log), its files, and the files not
	// kept fetched again.
	if want := 3*peers + peers*files + (peers*files - kept); sum.RequestsTotal != int64(want) {
		t.Errorf("%d requests, want %d: robots.txt, manifests, identities, files, and the files not kept fetched again", sum.RequestsTotal, want)
	}
}

// beatWatched runs a heartbeat like beat and returns the bytes of peers'
// files it held when it ended and the most it held at once; sum, when not
// nil, gets its summary.
func beatWatched(t *testing.T, dir string, now time.Time, sum **report.Summary) (held, peak int64) {
	t.Helper()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Run(context.Background(), Options{Dir: dir, Config: cfg, Now: func() time.Time { return now },
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		onBudget: func(n, p int64) { held, peak = n, p }})
	if err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	if sum != nil {
		*sum = s
	}
	return held, peak
}
