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
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/ledger"
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
		ours, lied := false, false
		for i, line := range lines {
			if strings.HasPrefix(line, "P\t") {
				ours = strings.Contains(line, "\t"+url+"\t")
			}
			if ours && strings.HasPrefix(line, "T\t") && strings.Contains(line, "\tknowledge\t") {
				lines[i], lied = strings.Replace(line, "\tknowledge\t", "\tcapability\t", 1), true
			}
		}
		if !lied {
			continue
		}
		var h map[string]any
		if err := json.Unmarshal(head, &h); err != nil {
			t.Fatal(err)
		}
		lie := strings.Join(lines, "")
		sum := sha256.Sum256([]byte(lie))
		h["body_sha256"] = hex.EncodeToString(sum[:])
		head, err = json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fp, append(append(head, '\n'), lie...), 0o644); err != nil {
			t.Fatal(err)
		}
		return fp
	}
	t.Fatalf("no summary holds a trace of %s", url)
	return ""
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
