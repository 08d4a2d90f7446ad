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
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/state"
)

// Small sizes of MANIFEST.md and its archive pages, so a test crosses
// them with a few files: MANIFEST.md keeps 3 to 4 rows, a page holds 2.
const (
	testWindow = 3
	testChunk  = 2
)

// beatSized is beat with the given MANIFEST.md window and archive chunk.
func beatSized(t testing.TB, dir string, now time.Time, window, chunk int) {
	t.Helper()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	_, err = Run(context.Background(), Options{
		Dir: dir, Config: cfg, Now: func() time.Time { return now },
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
		ManifestWindow: window, ManifestChunk: chunk,
	})
	if err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
}

// addOwnTraces writes traces from..to-1 into the node's traces/.
func addOwnTraces(t testing.TB, dir string, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		write(t, dir, fmt.Sprintf("traces/t%03d.md", i), traceFile(1000+i))
	}
}

func ownManifest(t testing.TB, dir string) *manifest.Manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, node.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m, problems, err := manifest.Parse(data)
	if err != nil || len(problems) > 0 {
		t.Fatalf("our MANIFEST.md: %v %v", err, problems)
	}
	return m
}

func TestOwnManifestStaysBoundedAsHistoryGrows(t *testing.T) {
	t.Parallel()
	dir := newNode(t, nil, "gossip:\n  enabled: false\n")
	total := 0
	for i := range 6 {
		addOwnTraces(t, dir, total, total+3)
		total += 3
		beatSized(t, dir, testNow.Add(time.Duration(i)*cursorStep), testWindow, testChunk)
		m := ownManifest(t, dir)
		if n := len(m.Entries); n < testWindow && total >= testWindow || n > testWindow+testChunk-1 {
			t.Errorf("after %d files MANIFEST.md holds %d rows, want %d to %d", total, n, testWindow, testWindow+testChunk-1)
		}
		if m.Sequence != manifest.Seq(total) {
			t.Errorf("after %d files sequence is %d", total, m.Sequence)
		}
	}
	s, err := node.Open(dir, node.Options{})
	if err != nil || s.ArchiveErr != nil {
		t.Fatalf("open: %v %v", err, s.ArchiveErr)
	}
	seen := map[manifest.Seq]string{}
	for _, e := range s.Rows() {
		if old, ok := seen[e.Seq]; ok {
			t.Errorf("seq %d listed twice: %s and %s", e.Seq, old, e.File)
		}
		seen[e.Seq] = e.File
	}
	if len(seen) != total {
		t.Errorf("%d rows over MANIFEST.md and its pages, want %d", len(seen), total)
	}
}

// dirServer serves a node's directory under /a/ and counts requests by
// path.
type dirServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func serveDir(t testing.TB, dir string) *dirServer {
	t.Helper()
	d := &dirServer{hits: map[string]int{}}
	fs := http.StripPrefix("/a/", http.FileServer(http.Dir(dir)))
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// FileServer's Last-Modified has whole seconds, and the author
		// rewrites MANIFEST.md within one: answer every request in full.
		r.Header.Del("If-Modified-Since")
		r.Header.Del("If-None-Match")
		d.mu.Lock()
		d.hits[r.URL.Path]++
		d.mu.Unlock()
		fs.ServeHTTP(w, r)
	}))
	t.Cleanup(d.Close)
	return d
}

// archiveHits counts the requests for archive pages.
func (d *dirServer) archiveHits() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for p, c := range d.hits {
		if strings.HasPrefix(p, "/a/"+node.ArchiveDir+"/") {
			n += c
		}
	}
	return n
}

func TestReaderFromCursorZeroGetsEveryRowOnceThroughTheArchive(t *testing.T) {
	t.Parallel()
	author := newNode(t, nil, "gossip:\n  enabled: false\n")
	const n = 20
	addOwnTraces(t, author, 0, n)
	beatSized(t, author, testNow, testWindow, testChunk)
	if got := len(ownManifest(t, author).Archives); got < 3*maxArchivePagesPerPoll {
		t.Fatalf("the author has %d archive pages; the test needs more than a poll reads", got)
	}
	srv := serveDir(t, author)
	url := srv.URL + "/a/"
	reader := newNode(t, [][2]string{{"author", url}}, "gossip:\n  enabled: false\n")
	now := testNow
	for i := 0; i < 20; i++ {
		now = now.Add(cursorStep)
		beat(t, reader, now)
		if loadState(t, reader).Cursors[url].LastSeenSeq == n {
			break
		}
	}
	c := loadState(t, reader).Cursors[url]
	if c.LastSeenSeq != n || len(c.Gaps) > 0 || len(c.Retry) > 0 {
		t.Fatalf("cursor at %d with gaps %v and retries %v, want %d and none", c.LastSeenSeq, c.Gaps, c.Retry, n)
	}
	if got := len(loadLedger(t, reader).Traces); got != n {
		t.Errorf("the reader's ledger holds %d of the author's traces, want %d", got, n)
	}
	srv.mu.Lock()
	for i := range n {
		p := fmt.Sprintf("/a/traces/t%03d.md", i)
		if srv.hits[p] != 1 {
			t.Errorf("%s fetched %d times, want once", p, srv.hits[p])
		}
	}
	srv.mu.Unlock()

	// Caught up, the reader's cursor is inside MANIFEST.md's window: a new
	// trace is read from MANIFEST.md alone.
	before := srv.archiveHits()
	addOwnTraces(t, author, n, n+1)
	beatSized(t, author, now, testWindow, testChunk)
	beat(t, reader, now.Add(cursorStep))
	if c := loadState(t, reader).Cursors[url]; c.LastSeenSeq != n+1 || len(c.Gaps) > 0 {
		t.Errorf("cursor at %d with gaps %v after the new trace, want %d", c.LastSeenSeq, c.Gaps, n+1)
	}
	if got := srv.archiveHits() - before; got != 0 {
		t.Errorf("a reader inside the window requested %d archive pages", got)
	}
}

func TestUnreadableArchivePageLeavesGapsNotAStuckCursor(t *testing.T) {
	t.Parallel()
	author := newNode(t, nil, "gossip:\n  enabled: false\n")
	const n = 12
	addOwnTraces(t, author, 0, n)
	beatSized(t, author, testNow, testWindow, testChunk)
	m := ownManifest(t, author)
	bad := m.Archives[0]
	// The page is altered where it is served: its hash no longer matches.
	write(t, author, bad.File, "# MANIFEST\n\nsequence: 2\n")
	srv := serveDir(t, author)
	url := srv.URL + "/a/"
	reader := newNode(t, [][2]string{{"author", url}}, "gossip:\n  enabled: false\n")
	now := testNow
	for i := 0; i < 10; i++ {
		now = now.Add(cursorStep)
		beat(t, reader, now)
	}
	c := loadState(t, reader).Cursors[url]
	want := state.Ranges{{From: bad.First, To: bad.Last}}
	if c.LastSeenSeq != n || fmt.Sprint(c.Gaps) != fmt.Sprint(want) {
		t.Errorf("cursor at %d with gaps %v, want %d with gaps %v", c.LastSeenSeq, c.Gaps, n, want)
	}
	if got := len(loadLedger(t, reader).Traces); got != n-int(bad.Last-bad.First+1) {
		t.Errorf("the reader's ledger holds %d traces", got)
	}
}
