package heartbeat

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestHeartbeatRepairsASummaryThatLies: a summary whose header and body
// hash are right but whose records of a peer are not its segment's (a
// writer's defect, or a person with push rights) is found when the
// heartbeat withdraws that peer's sealed trace, which reads its segments
// whole; the heartbeat trusts the segment, succeeds, warns once naming
// the summary, and leaves the node's files as a twin that never had the
// lie leaves them. Before, that heartbeat failed, and on a fresh checkout
// every heartbeat with news after it.
func TestHeartbeatRepairsASummaryThatLies(t *testing.T) {
	mesh := newSimMesh(t, 3)
	dir := newNode(t, mesh.roster(), "")
	beat(t, dir, testNow)
	later := testNow.Add(200 * 24 * time.Hour)
	beat(t, dir, later)
	twin := t.TempDir()
	if err := os.CopyFS(twin, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	p0 := mesh.roster()[0][1]
	fp := forgeSummaryOf(t, filepath.Join(dir, node.LedgerFile), p0)
	first := mesh.peers[0].m.Entries[0].Hash
	mesh.publish(0, 1)
	mesh.withdrawFirst(0)
	var logs, twinLogs bytes.Buffer
	found := false
	for at := later.Add(7 * 24 * time.Hour); !found && at.Before(later.Add(9*24*time.Hour)); at = at.Add(30 * time.Minute) {
		mesh.setNow(at)
		found = beatLogged(t, dir, at, &logs).NewTraces == 1
		if twinFound := beatLogged(t, twin, at, &twinLogs).NewTraces == 1; twinFound != found {
			t.Fatalf("at %s the twin found news %v, the node %v", at, twinFound, found)
		}
	}
	if !found {
		t.Fatal("the trace published was never read")
	}
	l, err := ledger.Load(filepath.Join(dir, node.LedgerFile))
	if err != nil {
		t.Fatal(err)
	}
	if tr := l.Traces[first]; tr == nil || tr.TakenDown != ledger.Withdrawn {
		t.Fatalf("the sealed trace withdrawn is %+v: no change read its segment", tr)
	}
	if n := strings.Count(logs.String(), "summary disagreed with its segments"); n != 1 || !strings.Contains(logs.String(), fp) {
		t.Errorf("the node warned %d times of the lie, want once naming %s:\n%s", n, fp, logs.String())
	}
	if strings.Contains(twinLogs.String(), "summary disagreed") {
		t.Errorf("the twin warned of a lie it never had:\n%s", twinLogs.String())
	}
	got, want := relFiles(t, dir), relFiles(t, twin)
	delete(got, node.DerivedFile)
	delete(want, node.DerivedFile)
	if !reflect.DeepEqual(got, want) {
		for name := range want {
			if got[name] != want[name] {
				t.Errorf("%s differs from the twin's, which never had the lie", name)
			}
		}
		t.Errorf("%d files, want %d", len(got), len(want))
	}
}

// forgeSummaryOf rewrites the summary of the ledger at p that holds the
// peer at url so that its trace lines of that peer give another type,
// with the header's body hash made right again; it returns its file.
func forgeSummaryOf(t *testing.T, p, url string) string {
	t.Helper()
	return rewriteSummaryOf(t, p, url, func(peer []string) bool {
		lied := false
		for i, line := range peer {
			if strings.HasPrefix(line, "T\t") && strings.Contains(line, "\tknowledge\t") {
				peer[i], lied = strings.Replace(line, "\tknowledge\t", "\tcapability\t", 1), true
			}
		}
		return lied
	})
}

// forgePhantomOf rewrites the summary of the ledger at p that holds the
// peer at url so that it gives that peer one trace more, which no segment
// holds (its peer line's count of traces made right); it returns its
// file and the phantom's hash.
func forgePhantomOf(t *testing.T, p, url string) (string, manifest.Hash) {
	t.Helper()
	h := manifest.Hash("sha256:" + strings.Repeat("ab", 32))
	fp := rewriteSummaryOf(t, p, url, func(peer []string) bool {
		for i, line := range peer[1:] {
			if !strings.HasPrefix(line, "T\t") {
				continue
			}
			f := strings.Split(strings.TrimSuffix(peer[0], "\n"), "\t")
			n, err := strconv.Atoi(f[4])
			if err != nil {
				t.Fatalf("peer line %q: %v", peer[0], err)
			}
			f[4] = strconv.Itoa(n + 1)
			peer[0] = strings.Join(f, "\t") + "\n"
			g := strings.Split(line, "\t")
			g[4], g[5], g[6] = "99", string(h), "traces/0099.md"
			peer[i+1] = line + strings.Join(g, "\t")
			return true
		}
		return false
	})
	return fp, h
}

// rewriteSummaryOf has edit change the lines of the peer at url (its peer
// line first) in the first summary of the ledger at p where edit says it
// did, makes the header's body hash right again, and returns the file.
func rewriteSummaryOf(t *testing.T, p, url string, edit func(peer []string) bool) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(statefile.SegmentsDir(p), "*.summary"))
	if err != nil {
		t.Fatal(err)
	}
	for _, fp := range files {
		data, err := os.ReadFile(fp)
		if err != nil {
			t.Fatal(err)
		}
		head, body, _ := bytes.Cut(data, []byte{'\n'})
		lines := strings.SplitAfter(string(body), "\n")
		start, end := -1, len(lines)
		for i, line := range lines {
			if !strings.HasPrefix(line, "P\t") {
				continue
			}
			if start >= 0 {
				end = i
				break
			}
			if strings.Contains(line, "\t"+url+"\t") {
				start = i
			}
		}
		if start < 0 || !edit(lines[start:end]) {
			continue
		}
		var hd map[string]any
		if err := json.Unmarshal(head, &hd); err != nil {
			t.Fatal(err)
		}
		lie := strings.Join(lines, "")
		sum := sha256.Sum256([]byte(lie))
		hd["body_sha256"] = hex.EncodeToString(sum[:])
		head, err = json.Marshal(hd)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fp, append(append(head, '\n'), lie...), 0o644); err != nil {
			t.Fatal(err)
		}
		return fp
	}
	t.Fatalf("no summary holds what edit needs of %s", url)
	return ""
}

// TestHeartbeatDropsATraceOnlyALyingSummaryGave: a summary that gives a
// peer a sealed trace its segment does not hold; the peer's MANIFEST.md
// does not list it either, so the heartbeat withdraws it, which reads the
// peer's segments whole and finds it gone. The heartbeat succeeds (it
// panicked on the record it had read before the repair), warns once, and
// the ledger holds no such trace.
func TestHeartbeatDropsATraceOnlyALyingSummaryGave(t *testing.T) {
	mesh := newSimMesh(t, 3)
	dir := newNode(t, mesh.roster(), "")
	beat(t, dir, testNow)
	later := testNow.Add(200 * 24 * time.Hour)
	beat(t, dir, later)
	lp := filepath.Join(dir, node.LedgerFile)
	fp, phantom := forgePhantomOf(t, lp, mesh.roster()[0][1])
	if l, err := ledger.LoadCompact(lp); err != nil || l.Traces[phantom] == nil {
		t.Fatalf("the forged summary was not read (%v): a poor test", err)
	}
	mesh.publish(0, 1)
	var logs bytes.Buffer
	found := false
	for at := later.Add(7 * 24 * time.Hour); !found && at.Before(later.Add(9*24*time.Hour)); at = at.Add(30 * time.Minute) {
		mesh.setNow(at)
		found = beatLogged(t, dir, at, &logs).NewTraces == 1
	}
	if !found {
		t.Fatal("the trace published was never read")
	}
	l, err := ledger.Load(lp)
	if err != nil {
		t.Fatal(err)
	}
	if tr := l.Traces[phantom]; tr != nil {
		t.Errorf("the ledger holds the trace only the lying summary gave: %+v", tr)
	}
	if n := strings.Count(logs.String(), "summary disagreed with its segments"); n != 1 || !strings.Contains(logs.String(), fp) {
		t.Errorf("the node warned %d times of the lie, want once naming %s:\n%s", n, fp, logs.String())
	}
}

// withdrawFirst takes the first trace of peer i off its MANIFEST.md.
func (s *simMesh) withdrawFirst(i int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.peers[i]
	p.m.Entries = p.m.Entries[1:]
	p.body = p.m.Format()
}

// beatLogged is beat, its log written to w.
func beatLogged(t testing.TB, dir string, now time.Time, w *bytes.Buffer) *report.Summary {
	t.Helper()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	sum, err := Run(context.Background(), Options{
		Dir: dir, Config: cfg, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(w, nil)),
	})
	if err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	return sum
}
