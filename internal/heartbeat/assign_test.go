package heartbeat

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
)

// busyPeer serves a canonical manifest with n traces.
func busyPeer(t *testing.T, n int) (*httptest.Server, []manifest.Hash) {
	return busyPeerSince(t, n, "")
}

// busyPeerSince serves a canonical manifest with n traces submitted two
// days before testNow and, when old is not empty, one more, old, five
// days before it, at seq n+1.
func busyPeerSince(t *testing.T, n int, old string) (*httptest.Server, []manifest.Hash) {
	files := map[string]string{}
	m := manifest.Manifest{Agent: "busy", Sequence: manifest.Seq(n)}
	var hashes []manifest.Hash
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("traces/%03d.md", i)
		files[name] = fmt.Sprintf("# Note %d\n\n## Work\n\nDone, step %d.\n", i, i)
		h := manifest.HashBytes([]byte(files[name]))
		hashes = append(hashes, h)
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(i), Hash: h, File: name, Type: "knowledge", Status: "pending", Submitted: testNow.Add(-48 * 3600e9)})
	}
	if old != "" {
		name := "traces/old.md"
		files[name] = old
		m.Sequence++
		m.Entries = append(m.Entries, manifest.Entry{Seq: m.Sequence, Hash: manifest.HashBytes([]byte(old)), File: name, Type: "knowledge", Status: "pending", Submitted: testNow.Add(-5 * 24 * 3600e9)})
	}
	body := m.Format()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(r.URL.Path, "/")
		if p == "MANIFEST.md" {
			w.Write(body)
			return
		}
		if f, ok := files[p]; ok {
			fmt.Fprint(w, f)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, hashes
}

// byWeight is names by sha256(hash + "\n" + name), highest first.
func byWeight(h manifest.Hash, names []string) []string {
	w := func(u string) []byte { s := sha256.Sum256([]byte(string(h) + "\n" + u)); return s[:] }
	out := slices.Clone(names)
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(w(out[i]), w(out[j])) > 0 })
	return out
}

// juryOf draws, independently of package signal, the five of pool (agent
// names) with the highest sha256(hash + "\n" + name) (docs/protocol.md §8.8).
func juryOf(h manifest.Hash, pool []string) []string {
	return byWeight(h, pool)[:5]
}

// TestUnderMesh2026v4TheNodeQueuesOnlyTheTracesAssignedToIt: with eight
// founders, this node among them, a peer's traces are queued only where
// their jury names this node, under mesh-2026-4 and mesh-2026-5 (nobody
// has left an assignment unanswered: the same juries); under mesh-2026-3
// every one is.
func TestUnderMesh2026v4TheNodeQueuesOnlyTheTracesAssignedToIt(t *testing.T) {
	const self = "http://127.0.0.1:1/tester/"
	pool := []string{"tester"}
	founders := "tester | " + self + "\n"
	for i := 1; i <= 7; i++ {
		pool = append(pool, fmt.Sprintf("f%d", i))
		founders += fmt.Sprintf("f%d | https://f%d.example/\n", i, i)
	}
	srv, hashes := busyPeer(t, 40)
	for _, rules := range []string{"mesh-2026-3", "mesh-2026-4", "mesh-2026-5"} {
		t.Run(rules, func(t *testing.T) {
			dir := newNode(t, [][2]string{{"busy", srv.URL + "/"}}, "")
			write(t, dir, node.FoundersFile, "rules: "+rules+"\n"+founders)
			var want []manifest.Hash
			for _, h := range hashes {
				if rules == "mesh-2026-3" || slices.Contains(juryOf(h, pool), "tester") {
					want = append(want, h)
				}
			}
			if len(want) == 0 || (rules != "mesh-2026-3" && len(want) == len(hashes)) {
				t.Fatalf("a poor test: %d of %d traces assigned", len(want), len(hashes))
			}
			sum := beat(t, dir, testNow)
			if sum.Queued != len(want) || sum.Unassigned != len(hashes)-len(want) {
				t.Fatalf("queued %d, unassigned %d; want %d and %d", sum.Queued, sum.Unassigned, len(want), len(hashes)-len(want))
			}
			slices.Sort(want)
			if got := queuedHashes(t, dir); !slices.Equal(got, want) {
				t.Fatalf("queued %v, want %v", got, want)
			}
			if sum.ValidationsPublished != len(want) {
				t.Fatalf("published %d validations, want %d", sum.ValidationsPublished, len(want))
			}
		})
	}
}

// TestUnderMesh2026v5TheNodeQueuesByJuriesWithoutTheAway: the five
// founders on the jury of the peer's trace of five days before have
// published no validation since, so under mesh-2026-5 they are away on
// the day of its other traces, two days before: those juries seat the
// founders present (the node and two others) first and the away only in
// the seats left, and the node queues the traces whose jury so drawn
// names it, where under mesh-2026-4 it would queue fewer.
func TestUnderMesh2026v5TheNodeQueuesByJuriesWithoutTheAway(t *testing.T) {
	const self = "http://127.0.0.1:1/tester/"
	pool := []string{"tester"}
	founders := "tester | " + self + "\n"
	for i := 1; i <= 7; i++ {
		pool = append(pool, fmt.Sprintf("f%d", i))
		founders += fmt.Sprintf("f%d | https://f%d.example/\n", i, i)
	}
	var old string
	var away []string
	for i := 0; ; i++ { // a trace whose jury does not name the node
		old = fmt.Sprintf("# Old note %d\n\n## Work\n\nDone.\n", i)
		if away = juryOf(manifest.HashBytes([]byte(old)), pool); !slices.Contains(away, "tester") {
			break
		}
	}
	srv, hashes := busyPeerSince(t, 40, old)
	present := slices.DeleteFunc(slices.Clone(pool), func(n string) bool { return slices.Contains(away, n) })
	var want []manifest.Hash
	gained := 0
	for _, h := range hashes {
		seats := append(byWeight(h, present), byWeight(h, away)...)[:5]
		if slices.Contains(seats, "tester") {
			want = append(want, h)
			if !slices.Contains(juryOf(h, pool), "tester") {
				gained++
			}
		}
	}
	if gained == 0 {
		t.Fatal("a poor test: the absence gives the node no trace")
	}
	dir := newNode(t, [][2]string{{"busy", srv.URL + "/"}}, "")
	write(t, dir, node.FoundersFile, "rules: mesh-2026-5\n"+founders)
	sum := beat(t, dir, testNow)
	if sum.Queued != len(want) || sum.Unassigned != len(hashes)+1-len(want) {
		t.Fatalf("queued %d, unassigned %d; want %d and %d", sum.Queued, sum.Unassigned, len(want), len(hashes)+1-len(want))
	}
	slices.Sort(want)
	if got := queuedHashes(t, dir); !slices.Equal(got, want) {
		t.Fatalf("queued %v, want %v", got, want)
	}
}

// queuedHashes returns the hashes of the items in dir's queue, sorted.
func queuedHashes(t *testing.T, dir string) []manifest.Hash {
	t.Helper()
	items, err := queue.Open(filepath.Join(dir, node.QueueFile)).List()
	if err != nil {
		t.Fatal(err)
	}
	var got []manifest.Hash
	for _, it := range items {
		got = append(got, it.Hash)
	}
	slices.Sort(got)
	return got
}
