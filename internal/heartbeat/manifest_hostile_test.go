package heartbeat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/integrity"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/statefile"
)

// traceFile is a small trace body distinct for each n.
func traceFile(n int) string { return fmt.Sprintf("# Trace %d\n\n## Work\n\nDone %d.\n", n, n) }

// manifestOf lists seq → file rows, each file's hash that of traceFile(i)
// for the row's index i, and serves the files under base.
func manifestOf(p *fakePeer, base string, sequence int, seqs ...int) []byte {
	m := manifest.Manifest{Agent: "odd", Sequence: manifest.Seq(sequence)}
	for i, seq := range seqs {
		name := fmt.Sprintf("traces/%d-%d.md", seq, i)
		p.serve(base+name, []byte(traceFile(i)))
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes([]byte(traceFile(i))), File: name, Type: "knowledge", Status: "validated"})
	}
	return m.Format()
}

// cursorsSize returns the size of the cursors file.
func cursorsSize(t *testing.T, dir string) int64 {
	t.Helper()
	entries, err := os.ReadDir(statefile.Dir(filepath.Join(dir, node.CursorsFile)))
	if err != nil {
		t.Fatal(err)
	}
	var size int64
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		size += fi.Size()
	}
	return size
}

func TestHugeAndScatteredSeqsKeepTheCursorSmall(t *testing.T) {
	t.Parallel()
	p := newFakePeer(t)
	seqs := []int{1, 999_999_999}
	for s := 3; s < 4200; s += 2 {
		seqs = append(seqs, s) // every other seq missing: 2,100 gaps, over MaxGapRanges
	}
	p.handle("/odd/MANIFEST.md", staticManifest(manifestOf(p, "/odd/", 1_000_000_000, seqs...)))
	dir := newNode(t, [][2]string{{"odd", p.URL + "/odd/"}}, "gossip:\n  enabled: false\n")
	for i := range 3 {
		beat(t, dir, testNow.Add(time.Duration(i)*cursorStep))
	}
	c := loadState(t, dir).Cursors[p.URL+"/odd/"]
	if len(c.Gaps) > state.MaxGapRanges || len(c.Retry) > state.MaxRetry {
		t.Errorf("cursor holds %d gap ranges and %d retries", len(c.Gaps), len(c.Retry))
	}
	if got := len(loadLedger(t, dir).Traces); got != len(seqs) {
		t.Errorf("ledger holds %d traces, want all %d", got, len(seqs))
	}
	if data, _ := json.Marshal(c); len(data) > 64<<10 {
		t.Errorf("the cursor is %d bytes of JSON", len(data))
	}
}

func TestDuplicateAndBadSeqsAreReadOnce(t *testing.T) {
	p := newFakePeer(t)
	body := manifestOf(p, "/odd/", 3, 1, 1, 2, 3)
	// A negative seq, a zero and a seq past the protocol's largest are
	// refused by the parser; the good rows around them stand.
	body = append(body, []byte("| -4 | sha256:"+fmt.Sprintf("%064x", 4)+" | traces/x.md | knowledge | validated | 2026-03-01T00:00:00Z |\n"+
		"| 0 | sha256:"+fmt.Sprintf("%064x", 5)+" | traces/y.md | knowledge | validated | 2026-03-01T00:00:00Z |\n"+
		"| 99999999999 | sha256:"+fmt.Sprintf("%064x", 6)+" | traces/z.md | knowledge | validated | 2026-03-01T00:00:00Z |\n")...)
	p.handle("/odd/MANIFEST.md", staticManifest(body))
	dir := newNode(t, [][2]string{{"odd", p.URL + "/odd/"}}, "gossip:\n  enabled: false\n")
	sum := beat(t, dir, testNow)
	beat(t, dir, testNow.Add(cursorStep))
	if got := len(loadLedger(t, dir).Traces); sum.Verified != 4 || got != 4 {
		t.Errorf("verified %d, ledger %d; want both rows of seq 1 and seqs 2 and 3", sum.Verified, got)
	}
	if c := loadState(t, dir).Cursors[p.URL+"/odd/"]; c.LastSeenSeq != 3 || c.Backlog || len(c.Retry) != 0 {
		t.Errorf("cursor %+v", c)
	}
}

// TestFlippingManifestIsReadOnceEach: a manifest that alternates between
// two versions at every request (a reset repository, a rewrite) makes the
// node rescan, but the poll fetches every file once and the state stays
// put. Each flip withdraws one version's traces and lists the other's
// again, whose copies the backfill then fetches once more: one request
// per file every second heartbeat, within copyBackfill.
func TestFlippingManifestIsReadOnceEach(t *testing.T) {
	p := newFakePeer(t)
	a := manifestOf(p, "/flip/", 3, 1, 2, 3)
	b := manifestOf(p, "/flip/", 2, 1, 2)
	// Version b's files differ from a's: other names, other bytes.
	bm, _, err := manifest.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range bm.Entries {
		body := traceFile(100 + i)
		bm.Entries[i].Hash, bm.Entries[i].File = manifest.HashBytes([]byte(body)), fmt.Sprintf("traces/b-%d.md", i)
		p.serve("/flip/"+bm.Entries[i].File, []byte(body))
	}
	b = bm.Format()
	var n atomic.Int64
	p.handle("/flip/MANIFEST.md", func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 1 {
			w.Write(a)
		} else {
			w.Write(b)
		}
	})
	dir := newNode(t, [][2]string{{"flip", p.URL + "/flip/"}}, "gossip:\n  enabled: false\n")
	var sizes []int64
	for i := range 6 {
		beat(t, dir, testNow.Add(time.Duration(i)*cursorStep))
		sizes = append(sizes, cursorsSize(t, dir))
	}
	if got := len(loadLedger(t, dir).Traces); got != 5 {
		t.Errorf("ledger holds %d traces, want the 3 of one version and the 2 of the other", got)
	}
	for _, f := range []string{"traces/1-0.md", "traces/b-0.md"} {
		if hits := p.hitsOf("/flip/" + f); hits != 1+len(sizes)/3 {
			t.Errorf("%s fetched %d times, want once by the poll and %d times for its copy", f, hits, len(sizes)/3)
		}
	}
	if sizes[5] != sizes[3] {
		t.Errorf("cursors file keeps growing: %v", sizes)
	}
}

// TestDrippingFileIsRetriedWithoutHoldingTheRest: a file whose body comes
// a byte at a time is cut off at the request timeout and retried next
// heartbeat; the peer's other files are recorded meanwhile.
//
// The request timeout is what cuts the drip, so the test waits it out, and
// it is every other request's timeout too: robots.txt, the manifest and
// the two good traces must each beat it. They take milliseconds on an idle
// machine, but the hostile-peers test's healthy peers timed out at 500 ms
// on a 2-core machine loaded by other jobs, under -race (hostileConfig),
// and this test had 300 ms. 3 s is ten times that; the test waits it once.
func TestDrippingFileIsRetriedWithoutHoldingTheRest(t *testing.T) {
	p := newFakePeer(t)
	body := manifestOf(p, "/d/", 3, 1, 2, 3)
	p.handle("/d/MANIFEST.md", staticManifest(body))
	stop := make(chan struct{})
	defer close(stop)
	var dripped atomic.Int32
	p.handle("/d/traces/2-1.md", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("# "))
		w.(http.Flusher).Flush()
		dripped.Add(1)
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	})
	dir := newNode(t, [][2]string{{"drip", p.URL + "/d/"}}, "gossip:\n  enabled: false\nheartbeat:\n  request_timeout: 3s\n")
	sum := beat(t, dir, testNow)
	c := loadState(t, dir).Cursors[p.URL+"/d/"]
	if sum.Verified != 2 || c.LastSeenSeq != 3 || len(c.Retry) != 1 || c.Retry[0] != 2 {
		t.Errorf("verified %d, cursor %+v; want 2 verified and seq 2 to retry", sum.Verified, c)
	}
	if n := dripped.Load(); n != 1 {
		t.Errorf("the dripping file was asked for %d times, want once: its seq is to retry because its body was cut, not because the request never reached it", n)
	}
}

// TestProblemsOfOnePeerDoNotFloodTheLog: a peer listing hundreds of files
// that are refused gets maxProblemLogs lines and a count, not a line each.
func TestProblemsOfOnePeerDoNotFloodTheLog(t *testing.T) {
	p := newFakePeer(t)
	m := manifest.Manifest{Agent: "noisy", Sequence: 300}
	for seq := 1; seq <= 300; seq++ {
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes([]byte(fmt.Sprint(seq))), File: fmt.Sprintf("../../etc/%d", seq), Type: "knowledge", Status: "pending"})
	}
	p.serve("/n/MANIFEST.md", m.Format())
	dir := newNode(t, [][2]string{{"noisy", p.URL + "/n/"}}, "gossip:\n  enabled: false\n")
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	sum, err := Run(context.Background(), Options{Dir: dir, Config: cfg, Now: func() time.Time { return testNow },
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rejected != 300 {
		t.Errorf("rejected %d, want 300", sum.Rejected)
	}
	if got := strings.Count(logs.String(), integrity.KindPath.Phrase()); got != maxProblemLogs {
		t.Errorf("%d refusals logged, want %d", got, maxProblemLogs)
	}
	if !strings.Contains(logs.String(), fmt.Sprintf("%d more problems with its files", 300-maxProblemLogs)) {
		t.Errorf("no count of the rest in the log:\n%s", logs.String())
	}
}
