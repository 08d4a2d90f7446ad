package demo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/demo"
	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/translog"
	"github.com/meshnode/meshnode/internal/validation"
)

func TestDemoRunsTwoHeartbeatsInDir(t *testing.T) {
	t.Parallel()
	r := sharedDemo(t)
	if r.res.Dir != r.dir {
		t.Errorf("Result.Dir = %q, want %q", r.res.Dir, r.dir)
	}
	one, two := r.round(t, 1), r.round(t, 2)
	// dormant is polled in both rounds; eve, learned in round 1, only in round 2.
	if one.PeersPolled != 4 || two.PeersPolled != 5 {
		t.Errorf("peers polled %d then %d, want 4 then 5", one.PeersPolled, two.PeersPolled)
	}
	for _, name := range []string{"mesh.yaml", "IDENTITY.md", "AGENTS.md", "MANIFEST.md", "traces/001-hello-mesh.md"} {
		r.read(t, name)
	}
}

func TestDemoRejectsTamperedFileAndPublishesDispute(t *testing.T) {
	t.Parallel()
	r := sharedDemo(t)
	one, two := r.round(t, 1), r.round(t, 2)
	if one.Rejected != 1 || len(one.HashMismatches) != 1 {
		t.Fatalf("round 1 rejected %d files with %d mismatches, want 1 and 1", one.Rejected, len(one.HashMismatches))
	}
	m := one.HashMismatches[0]
	if m.Peer != "cyd" || m.Seq != 2 || !strings.HasSuffix(m.URL, "/cyd/traces/002-tampered.md") || m.Claimed == m.Served {
		t.Errorf("mismatch = %+v, want cyd seq 2 002-tampered.md with two different hashes", m)
	}
	if one.DisputesPublished != 1 {
		t.Errorf("round 1 published %d disputes, want 1", one.DisputesPublished)
	}
	// A mismatch is not retried: the peer must publish again.
	if two.Rejected != 0 || len(two.HashMismatches) != 0 || two.DisputesPublished != 0 {
		t.Errorf("round 2 rejected %d, mismatches %d, disputes %d; want the mismatch recorded once", two.Rejected, len(two.HashMismatches), two.DisputesPublished)
	}
	d, err := dispute.Parse(r.read(t, "disputes/"+dispute.FileName(m.Claimed)))
	if err != nil {
		t.Fatal(err)
	}
	if d.Reporter != "demo-node" || d.Agent != "cyd" || d.Seq != 2 || d.FileURL != m.URL ||
		d.ClaimedHash != m.Claimed || d.ServedHash != m.Served || !d.ObservedAt.Equal(round1) {
		t.Errorf("dispute = %+v, want cyd's seq 2 as seen at %s", d, round1)
	}
	for path := range r.validations(t) {
		if strings.HasSuffix(path, "002-tampered.md") {
			t.Errorf("the tampered file was validated")
		}
	}
}

func TestDemoCountsDownPeerAsFailed(t *testing.T) {
	t.Parallel()
	r := sharedDemo(t)
	for n := 1; n <= 2; n++ {
		s := r.round(t, n)
		if s.PeersFailed != 1 || len(s.Failures) != 1 || s.Failures[0].Peer != "dormant" {
			t.Errorf("round %d: %d failed, failures %+v; want dormant alone", n, s.PeersFailed, s.Failures)
		}
	}
	c := cursorOf(t, r.cursors(t), "dormant")
	if c.FailureCount != 2 || !c.FirstFailure.Equal(round1) || c.LastError == "" {
		t.Errorf("dormant's cursor = %+v, want 2 failures since %s with the error kept", c, round1)
	}
}

func TestDemoLearnsEveByGossip(t *testing.T) {
	t.Parallel()
	r := sharedDemo(t)
	if n := r.round(t, 1).PeersLearned; n != 1 {
		t.Errorf("round 1 learned %d peers, want 1 (eve)", n)
	}
	if strings.Contains(string(r.read(t, "AGENTS.md")), "eve") {
		t.Fatal("eve is in the node's own AGENTS.md; the demo must learn her by gossip")
	}
	s := r.cursors(t)
	eve := cursorOf(t, s, "eve")
	from, ok := s.Cursors[eve.LearnedFrom]
	if !ok || eve.LearnedFrom == "" {
		t.Fatalf("eve learned_from %q, want the URL of a peer the node polls", eve.LearnedFrom)
	}
	if from.LearnedFrom != "" {
		t.Errorf("eve was learned from %s, itself learned by gossip; want a peer of AGENTS.md", from.Agent)
	}
	if eve.LastSeenSeq != 1 || !eve.LastSuccess.Equal(round2) {
		t.Errorf("eve's cursor = %+v, want seq 1 read in round 2", eve)
	}
	v := r.validations(t)["eve/traces/001-learned-by-gossip.md"]
	if v == nil || !v.ValidatedAt.Equal(round2) {
		t.Errorf("eve's trace validation = %+v, want one made in round 2", v)
	}
}

func TestDemoPicksUpBobsBackfilledSeq(t *testing.T) {
	t.Parallel()
	r := sharedDemo(t)
	one, two := r.round(t, 1), r.round(t, 2)
	if one.Gaps != 1 || two.Gaps != 0 {
		t.Errorf("seqs missing: %d then %d, want 1 (bob's seq 3) then 0", one.Gaps, two.Gaps)
	}
	// Round 2's new traces: ada's seq 4, bob's backfilled seq 3, eve's seq 1.
	if two.NewTraces != 3 || two.Verified != 3 {
		t.Errorf("round 2: %d new traces, %d verified; want 3 and 3", two.NewTraces, two.Verified)
	}
	bob := cursorOf(t, r.cursors(t), "bob")
	if bob.LastSeenSeq != 4 || len(bob.Gaps) != 0 {
		t.Errorf("bob's cursor: seq %d, gaps %v; want 4 and none", bob.LastSeenSeq, bob.Gaps)
	}
	v := r.validations(t)["bob/traces/003-backfilled.md"]
	if v == nil || !v.ValidatedAt.Equal(round2) {
		t.Errorf("bob's backfilled trace validation = %+v, want one made in round 2", v)
	}
}

// The demo's sample traces are written so that the heuristic scorer passes
// the substantive ones and fails the short notes: a newcomer sees both, in
// the files and in the printed list of verdicts.
func TestDemoValidationsPassAndFail(t *testing.T) {
	t.Parallel()
	r := sharedDemo(t)
	want := map[string]struct {
		ref  string
		pass bool
	}{
		"ada/traces/001-polling-costs.md":             {"ada/1", true},
		"ada/traces/002-citation-graph.md":            {"ada/2", true},
		"bob/traces/001-mismatch-is-signal.md":        {"bob/1", true},
		"eve/traces/001-learned-by-gossip.md":         {"eve/1", true},
		"ada/traces/003-backoff-note.md":              {"ada/3", false},
		"ada/traces/004-new-after-first-heartbeat.md": {"ada/4", false},
		"bob/traces/002-gap-handling.md":              {"bob/2", false},
		"bob/traces/003-backfilled.md":                {"bob/3", false},
		"bob/traces/004-after-the-gap.md":             {"bob/4", false},
		"cyd/traces/001-scoring-rubric.md":            {"cyd/1", false},
	}
	got := r.validations(t)
	var paths []string
	for p := range got {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(got) != len(want) {
		t.Errorf("validations of %v, want one for each of the %d peers' traces", paths, len(want))
	}
	for path, w := range want {
		v := got[path]
		if v == nil {
			t.Errorf("no validation of %s", path)
			continue
		}
		if v.Validator != "demo-node" || !v.HasScores || v.Total != v.Scores.Total() || v.Result != validation.ResultFor(v.Total) {
			t.Errorf("%s: validation %+v is not a scored one by demo-node with a consistent total", path, v)
		}
		if wantResult := map[bool]string{true: validation.ResultPass, false: validation.ResultFail}[w.pass]; v.Result != wantResult {
			t.Errorf("%s: %s with %d/30 (%v), want %s", path, v.Result, v.Total, v.Scores, wantResult)
		}
		printed := fmt.Sprintf("%s %s %d/30", w.ref, v.Result, v.Total)
		if line := verdictLine(r.out, w.ref); !strings.HasPrefix(line, printed+" ") {
			t.Errorf("printed verdict of %s is %q, want it to start with %q", w.ref, line, printed)
		}
	}
	if one, two := r.round(t, 1).ValidationsPublished, r.round(t, 2).ValidationsPublished; one != 7 || two != 3 {
		t.Errorf("validations published %d then %d, want 7 then 3", one, two)
	}
}

// verdictLine returns the printed verdict line of the trace ref ("ada/1"),
// with its spaces collapsed.
func verdictLine(out, ref string) string {
	_, list, _ := strings.Cut(out, "Our validations")
	list, _, _ = strings.Cut(list, "\n\n")
	for _, line := range strings.Split(list, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == ref {
			return strings.Join(f, " ")
		}
	}
	return ""
}

func TestDemoDoesNotValidateOwnTrace(t *testing.T) {
	t.Parallel()
	r := sharedDemo(t)
	own := r.nodeURL(t) + "traces/001-hello-mesh.md"
	for path, v := range r.validations(t) {
		if v.TraceURL == own {
			t.Errorf("the node validated its own trace (%s)", path)
		}
	}
	// cyd's passing validation of the node's trace comes back as its status.
	m, _, err := manifest.Parse(r.read(t, "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Entries {
		if e.File == "traces/001-hello-mesh.md" {
			if e.Status != manifest.StatusValidated || e.Seq != 1 {
				t.Errorf("own trace listed as seq %d %q, want seq 1 validated (by cyd)", e.Seq, e.Status)
			}
			return
		}
	}
	t.Error("MANIFEST.md does not list the node's own trace")
}

func TestDemoManifestListsItsFiles(t *testing.T) {
	t.Parallel()
	r := sharedDemo(t)
	m, problems, err := manifest.Parse(r.read(t, "MANIFEST.md"))
	if err != nil || len(problems) > 0 {
		t.Fatalf("MANIFEST.md: %v, problems %v", err, problems)
	}
	if m.Agent != "demo-node" || m.URL != r.nodeURL(t) || !m.Updated.Equal(round2) {
		t.Errorf("MANIFEST.md is %q at %q updated %s, want demo-node at its URL updated %s", m.Agent, m.URL, m.Updated, round2)
	}
	listed := map[string]manifest.Entry{}
	seqs := map[manifest.Seq]bool{}
	for _, e := range m.Entries {
		listed[e.File] = e
		seqs[e.Seq] = true
		if got := manifest.HashBytes(r.read(t, e.File)); got != e.Hash {
			t.Errorf("%s: listed as %s, its bytes hash to %s", e.File, e.Hash, got)
		}
	}
	if n := manifest.Seq(len(m.Entries)); m.Sequence != n || m.MaxSeq() != n || len(seqs) != len(m.Entries) {
		t.Errorf("sequence %d, max seq %d, %d distinct seqs for %d rows; want 1..N without gaps", m.Sequence, m.MaxSeq(), len(seqs), len(m.Entries))
	}
	files, err := filepath.Glob(filepath.Join(r.dir, "validations", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	disputes, err := filepath.Glob(filepath.Join(r.dir, "disputes", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"traces/001-hello-mesh.md": "knowledge"}
	for _, f := range files {
		want["validations/"+filepath.Base(f)] = "validation"
	}
	for _, f := range disputes {
		want["disputes/"+filepath.Base(f)] = "dispute"
	}
	if len(files) != 10 || len(disputes) != 1 || len(m.Entries) != len(want) {
		t.Errorf("%d validations, %d disputes, %d MANIFEST rows; want 10, 1 and one row each plus the trace", len(files), len(disputes), len(m.Entries))
	}
	for file, typ := range want {
		if e, ok := listed[file]; !ok || e.Type != typ {
			t.Errorf("MANIFEST.md lists %s as %+v, want type %s", file, e, typ)
		}
	}
}

func TestDemoTourNamesFilesAndCommands(t *testing.T) {
	t.Parallel()
	r := sharedDemo(t)
	checkTour(t, r)
	for _, want := range []string{"Heartbeat 1:", "Heartbeat 2:", "hash mismatch: cyd seq 2", "failed: dormant:", "bob backfills", "_site/index.html"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("output lacks %q:\n%s", want, r.out)
		}
	}
}

func TestDemoBuildsSiteIntoNodeDir(t *testing.T) {
	t.Parallel()
	r := sharedDemo(t)
	if buildDir != r.dir || buildOut != filepath.Join(r.dir, "_site") {
		t.Errorf("Build(%q, %q), want the node's directory and its _site", buildDir, buildOut)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "_site", "index.html")); err != nil {
		t.Errorf("site not built: %v", err)
	}
}

func TestDemoWithoutBuildLeavesSiteOut(t *testing.T) {
	t.Parallel()
	r := plainDemo(t)
	checkTour(t, r)
	if strings.Contains(r.out, "_site") {
		t.Errorf("the tour names _site although no site was built:\n%s", r.out)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "_site")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("_site exists without a Build (%v)", err)
	}
}

// checkTour checks that every file the tour names exists and that it gives
// the commands with the demo's clock, so they see the node as it was.
func checkTour(t *testing.T, r *run) {
	t.Helper()
	_, tour, ok := strings.Cut(r.out, "Where the files are")
	if !ok {
		t.Fatalf("no tour in the output:\n%s", r.out)
	}
	named := 0
	for _, line := range strings.Split(tour, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || !strings.HasPrefix(line, "  ") || fields[0] == "meshnode" {
			continue
		}
		named++
		if _, err := os.Stat(filepath.Join(r.dir, filepath.FromSlash(fields[0]))); err != nil {
			t.Errorf("the tour names %s: %v", fields[0], err)
		}
	}
	if named < 6 {
		t.Errorf("the tour names %d files, want at least 6:\n%s", named, tour)
	}
	for _, cmd := range []string{"peers", "signal", "inbox"} {
		want := "meshnode " + cmd + " --dir " + r.dir + " --now " + round2.Format(time.RFC3339)
		if !strings.Contains(tour, want) {
			t.Errorf("the tour lacks %q:\n%s", want, tour)
		}
	}
}

func TestDemoReportsBuildFailureWithoutStdout(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk full")
	// Stdout nil: the run prints nowhere instead of panicking.
	_, err := demo.Run(context.Background(), demo.Options{
		Dir:   t.TempDir(),
		Build: func(context.Context, string, string) error { return boom },
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "build site") {
		t.Errorf("err = %v, want the build's error wrapped as build site", err)
	}
}

func TestDemoRefusesNonEmptyDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := demo.Run(context.Background(), demo.Options{Dir: dir, Stdout: new(bytes.Buffer)})
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("err = %v, want a not-empty error", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "mine\n" {
		t.Errorf("notes.txt is now %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "mesh.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the demo wrote into a non-empty directory (mesh.yaml: %v)", err)
	}
}

func TestDemoNeedsDir(t *testing.T) {
	t.Parallel()
	_, err := demo.Run(context.Background(), demo.Options{Stdout: new(bytes.Buffer)})
	if err == nil || !strings.Contains(err.Error(), "no directory") {
		t.Errorf("err = %v, want a no-directory error", err)
	}
}

// The demo node signs its log as a node made by init does, so its first
// run shows the whole of what a node publishes and no warning that a key
// is missing: the checkpoint opens with the key IDENTITY.md publishes and
// covers every row of MANIFEST.md.
func TestDemoSignsItsLog(t *testing.T) {
	t.Parallel()
	r := sharedDemo(t)
	for i, sum := range r.res.Rounds {
		if sum.LogUnsigned != "" {
			t.Errorf("heartbeat %d published no signed log: %s", i+1, sum.LogUnsigned)
		}
	}
	if strings.Contains(r.out, "no signing key") {
		t.Errorf("the demo's output asks for a signing key:\n%s", r.out)
	}
	keys := translog.Keys(r.read(t, "IDENTITY.md"))
	if len(keys) != 1 {
		t.Fatalf("IDENTITY.md publishes log keys %v, want one", keys)
	}
	c, err := translog.Open(r.read(t, "log/checkpoint"), keys[0])
	if err != nil {
		t.Fatalf("log/checkpoint does not open with IDENTITY.md's key: %v", err)
	}
	m, _, err := manifest.Parse(r.read(t, "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Size != int64(len(m.Entries)) {
		t.Errorf("the log's checkpoint has size %d, MANIFEST.md %d rows", c.Size, len(m.Entries))
	}
}
