package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/audit"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/signal"
)

// reserveTrace is the trace ada publishes in the reserve's tests: one the
// heuristic passes, so that every vote is a pass.
const reserveTrace = "001-retry-ladder.md"

// TestTheReserveStepsInWhenTheJuryLeaves runs a mesh on mesh-2026-6 whose
// every node is a founder and every heartbeat a process of its own: ada
// publishes a trace; its jurors (signal's own draw, as ada's files give
// it) leave, all or some, before they read it: they run no heartbeat
// again, their hosts still serving what they published. The heartbeats of
// the rest until 24 hours after the trace was submitted cast no reserve
// vote; at 24 hours each member of its reserve steps in, and the trace
// ends with the votes of the jurors who stayed and of its whole reserve,
// as `meshnode signal` and `meshnode verify` read them from ada's public
// files. Validators outside both never vote; with the jury present the
// reserve never does either.
//
// Each node beats at a few times only (as the trace is published, the
// last second before 24 hours, 24 hours), so it polls every peer at every
// heartbeat (quiet_after: 0): polling's adaptive schedule, read at so few
// heartbeats, skips peers whose turn fell between them.
func TestTheReserveStepsInWhenTheJuryLeaves(t *testing.T) {
	for _, tc := range []struct {
		name       string
		validators int  // founders besides ada
		stay       int  // jurors who keep running, and vote at once
		stepIn     bool // the reserve votes
	}{
		{"the whole jury leaves: the reserve steps in, nobody outside it", 12, 0, true},
		{"three jurors leave: two votes are short, the reserve steps in", 10, 2, true},
		{"the jury stays: the reserve never votes", 10, 5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runReserveMesh(t, tc.validators, tc.stay, tc.stepIn)
		})
	}
}

// runReserveMesh runs one mesh of TestTheReserveStepsInWhenTheJuryLeaves:
// ada and the validators founders, stay of the trace's jurors still
// running after ada publishes it.
func runReserveMesh(t *testing.T, validators, stay int, stepIn bool) {
	names := []string{"ada"}
	for i := 1; i <= validators; i++ {
		names = append(names, fmt.Sprintf("v%02d", i))
	}
	m := newMesh(t, names...)
	m.rules = signal.RulesMesh2026v6
	for _, n := range names {
		m.configure(n, founding+"polling:\n  quiet_after: 0\n")
	}
	for _, n := range names {
		m.processBeat(n) // publishes its MANIFEST.md, reads the others'
	}

	ada := m.node("ada")
	ada.addTraces(t, "ada", reserveTrace)
	m.now = m.now.Add(heartbeatEvery)
	submitted := m.now
	if sum := m.processBeat("ada"); sum.TracesPublished != 1 {
		t.Fatalf("ada published %d traces, want 1", sum.TracesPublished)
	}
	tr := traceOf(t, ada, reserveTrace)
	if len(tr.Jury) != signal.JurySize || len(tr.Reserve) != signal.ReserveSize {
		t.Fatalf("jury %v, reserve %v: want %d and %d distinct validators", tr.Jury, tr.Reserve, signal.JurySize, signal.ReserveSize)
	}
	left := tr.Jury[stay:]
	running := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(left, n) })
	role := func(n string) string {
		switch {
		case slices.Contains(tr.Jury, n):
			return "juror"
		case slices.Contains(tr.Reserve, n):
			return "reserve"
		}
		return "outside"
	}
	t.Logf("trace %s: jury %v (left: %v), reserve %v", tr.Hash, tr.Jury, left, tr.Reserve)

	// The jurors who stay vote as they read it; nobody else before 24
	// hours. ada beat at the trace's clock already.
	for _, at := range []time.Duration{0, 24*time.Hour - time.Second} {
		m.now = submitted.Add(at)
		for _, n := range running[1:] {
			want := 0
			if at == 0 && role(n) == "juror" {
				want = 1
			}
			if sum := m.processBeat(n); sum.Reserve != 0 || sum.ValidationsPublished != want {
				t.Fatalf("%s (%s) at +%v: reserve %d, published %d; want 0 and %d", n, role(n), at, sum.Reserve, sum.ValidationsPublished, want)
			}
		}
	}
	m.now = submitted.Add(24 * time.Hour)
	for _, n := range running {
		want := 0
		if stepIn && role(n) == "reserve" {
			want = 1
		}
		if sum := m.processBeat(n); sum.Reserve != want || sum.ValidationsPublished != want {
			t.Fatalf("%s (%s) at +24h: reserve %d, published %d; want %d and %d", n, role(n), sum.Reserve, sum.ValidationsPublished, want, want)
		}
	}
	// ada reads the votes and publishes the status they give.
	m.now = submitted.Add(24*time.Hour + heartbeatEvery)
	m.processBeat("ada")
	checkReserveVotes(t, m, tr, stay, stepIn)
}

// checkReserveVotes reads, as a person would, what the mesh made of tr:
// who published a validation of it, the votes `meshnode signal` counts
// from ada's files, and whether `meshnode verify` of ada finds its
// published status the one the files give.
func checkReserveVotes(t *testing.T, m *testMesh, tr signal.TraceResult, stay int, stepIn bool) {
	t.Helper()
	var want []string // the validators whose vote counts
	want = append(want, tr.Jury[:stay]...)
	if stepIn {
		want = append(want, tr.Reserve...)
	}
	slices.Sort(want)
	var voted []string
	for _, n := range m.nodes {
		if _, ok := readValidations(t, n.dir)[tr.Hash]; ok {
			voted = append(voted, n.name)
		}
	}
	if !slices.Equal(voted, want) {
		t.Errorf("validations of the trace by %v, want by %v", voted, want)
	}
	ada := m.node("ada")
	got := traceOf(t, ada, reserveTrace)
	if got.Seen != len(want) || got.Passing != len(want) || got.Unassigned != 0 || got.Status != manifest.StatusValidated && len(want) > 0 {
		t.Errorf("ada's files count %d votes (%d passing, %d unassigned), status %s; want %d counted, all passing, none unassigned",
			got.Seen, got.Passing, got.Unassigned, got.Status, len(want))
	}
	if len(want) < heartbeat.ReserveShort {
		t.Errorf("the test's mesh leaves the trace %d votes, fewer than the %d the reserve is for", len(want), heartbeat.ReserveShort)
	}
	rep, err := audit.Run(context.Background(), audit.Options{Source: ada.url, AllowPrivate: true, Now: m.now})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rep.Rows, func(r audit.Row) bool { return r.Hash == tr.Hash })
	if i < 0 || rep.Disagree != 0 {
		t.Fatalf("verify of ada: %d rows disagree, trace row found: %v: %+v", rep.Disagree, i >= 0, rep.Rows)
	}
	if r := rep.Rows[i]; r.Verdict != audit.Agree || r.Published != manifest.StatusValidated || r.Computed != manifest.StatusValidated {
		t.Errorf("verify of ada's trace: published %s, computed %s, verdict %s; want validated, validated, agree", r.Published, r.Computed, r.Verdict)
	}
}

// traceOf is the result `meshnode signal --json` prints, from the files of
// node n, of n's trace traces/file.
func traceOf(t *testing.T, n *testNode, file string) signal.TraceResult {
	t.Helper()
	in, err := signal.Load(n.dir, n.name, n.url)
	if err != nil {
		t.Fatalf("%s: signal.Load: %v", n.name, err)
	}
	for _, tr := range signal.Compute(in).Traces {
		if tr.URL == n.url+"traces/"+file {
			return tr
		}
	}
	t.Fatalf("%s's files give no result for traces/%s", n.name, file)
	return signal.TraceResult{}
}

// processBeat runs one heartbeat of the named node at the mesh's clock in
// a process of its own (childHeartbeat: exactly what `meshnode heartbeat
// --now T --summary FILE` runs), and returns the summary it wrote.
func (m *testMesh) processBeat(name string) *report.Summary {
	m.t.Helper()
	file := filepath.Join(m.t.TempDir(), "summary.json")
	cmd := childHeartbeat(m.node(name).dir, m.now)
	cmd.Env = append(cmd.Env, envChildSummary+"="+file)
	if err := cmd.Run(); err != nil {
		m.t.Fatalf("heartbeat of %s at %s: %v", name, m.now.Format(time.RFC3339), err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		m.t.Fatal(err)
	}
	sum := &report.Summary{}
	if err := json.Unmarshal(data, sum); err != nil {
		m.t.Fatalf("summary of %s: %v", name, err)
	}
	return sum
}

// writeSummary writes sum as JSON to path, as `meshnode heartbeat
// --summary` does.
func writeSummary(path string, sum *report.Summary) error {
	data, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return fmt.Errorf("encode summary: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}
