package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/state"
)

var peersNow = time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)

// writePeersNode writes a node that knows five agents: ann (polled a
// minute ago, manifest updated an hour ago, with a gap), bob (failing for
// 31 days), cy (listed, never polled), dee (learned from ann's AGENTS.md)
// and eve (quiet, polled 3 hours ago with its manifest updated an hour
// before, next polled in 3 hours).
func writePeersNode(t *testing.T) string {
	t.Helper()
	dir := minimalNode(t)
	agents := "# name | trace_url | joined\ncy | https://cy.example/ | 2026-02-03\neve | https://eve.example/ | 2026-02-04\nann | https://ann.example/ | 2026-02-01\nbob | https://bob.example/ | 2026-02-02\n"
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(agents), 0o644); err != nil {
		t.Fatal(err)
	}
	st := state.New()
	ann := st.Cursor("https://ann.example/")
	ann.Agent, ann.LastSeenSeq = "ann", 50
	ann.Gaps = state.Ranges{{From: 46, To: 48}}
	ann.LastPolled = peersNow.Add(-time.Minute)
	ann.RecordSuccess(ann.LastPolled)
	ann.ManifestUpdated = peersNow.Add(-time.Hour)
	bob := st.Cursor("https://bob.example/")
	bob.Agent, bob.LastSeenSeq = "bob", 7
	bob.RecordSuccess(peersNow.Add(-40 * 24 * time.Hour))
	for d := 31; d >= 0; d-- {
		bob.LastPolled = peersNow.Add(-time.Duration(d) * 24 * time.Hour)
		bob.RecordFailure(bob.LastPolled, "connection refused")
	}
	eve := st.Cursor("https://eve.example/")
	eve.Agent, eve.LastSeenSeq = "eve", 3
	eve.LastPolled = peersNow.Add(-3 * time.Hour)
	eve.RecordSuccess(eve.LastPolled)
	eve.ManifestUpdated = peersNow.Add(-4 * time.Hour)
	eve.LastNews, eve.NextPoll = peersNow.Add(-30*24*time.Hour), peersNow.Add(3*time.Hour)
	dee := st.Cursor("https://dee.example/")
	dee.Agent, dee.LearnedFrom = "dee", "https://ann.example/"
	if _, err := st.Save(filepath.Join(dir, "mesh-state", "polling-cursors.json"), time.Time{}); err != nil {
		t.Fatal(err)
	}
	led := ledger.New()
	led.AddTrace(&ledger.Trace{Agent: "ann", AgentURL: "https://ann.example/", Seq: 1, Hash: "sha256:a1"})
	led.AddTrace(&ledger.Trace{Agent: "ann", AgentURL: "https://ann.example/", Seq: 2, Hash: "sha256:a2"})
	led.AddValidation(&ledger.Validation{ValidatorURL: "https://ann.example/", TraceHash: "sha256:b1"})
	if _, err := led.Save(filepath.Join(dir, "mesh-state", "ledger.json")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	return out.String(), err
}

func TestPeersTableShowsPresenceCursorAndCounts(t *testing.T) {
	dir := writePeersNode(t)
	got, err := runCmd(t, "peers", "--dir", dir, "--now", peersNow.Format(time.RFC3339))
	if err != nil {
		t.Fatal(err)
	}
	want := `AGENT  PRESENCE             EVIDENCE                               SEQ  GAPS   FAILS  BACKOFF  POLLED    NEXT   TRACES  VALIDATIONS  URL
ann    active               manifest updated 2026-03-15 11:00 UTC  50   46-48  0      -        1m ago    -      2       1            https://ann.example/
bob    unreachable          failing since 2026-02-12 12:00 UTC     7    -      32     weekly   just now  in 7d  0       0            https://bob.example/
cy     unknown              not reached yet                        0    -      0      -        never     -      0       0            https://cy.example/
dee    unknown              not reached yet                        0    -      0      -        never     -      0       0            https://dee.example/
eve    active as of 3h ago  manifest updated 2026-03-15 08:00 UTC  3    -      0      -        3h ago    in 3h  0       0            https://eve.example/
`
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestPeersJSONListsEveryAgentWithSchemaFields(t *testing.T) {
	dir := writePeersNode(t)
	out, err := runCmd(t, "peers", "--dir", dir, "--now", peersNow.Format(time.RFC3339), "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	tests := []struct {
		name  string
		agent string
		field string
		want  any
	}{
		{"ann is active", "ann", "presence", "active"},
		{"ann's gap count", "ann", "gap_count", 3.0},
		{"ann's traces from the ledger", "ann", "traces", 2.0},
		{"bob's breaker status", "bob", "status", "unreachable"},
		{"bob's backoff", "bob", "backoff", "weekly"},
		{"cy came from AGENTS.md", "cy", "source", "agents.md"},
		{"cy was never polled", "cy", "last_polled", nil},
		{"cy's presence is unknown, not offline", "cy", "presence", "unknown"},
		{"cy's note says so", "cy", "presence_note", "not reached yet"},
		{"ann's evidence is her header", "ann", "evidence", "2026-03-15T11:00:00Z"},
		{"ann's note names it", "ann", "presence_note", "manifest updated 2026-03-15 11:00 UTC"},
		{"bob has no evidence", "bob", "evidence", nil},
		{"dee came from gossip", "dee", "source", "gossip"},
		{"dee names who listed it", "dee", "learned_from", "https://ann.example/"},
		{"ann's presence is as of now", "ann", "presence_as_of", "2026-03-15T12:00:00Z"},
		{"ann is polled at the next heartbeat", "ann", "next_poll", "2026-03-15T11:59:00Z"},
		{"quiet eve is active as of its last poll", "eve", "presence", "active"},
		{"eve's presence is as of its last poll", "eve", "presence_as_of", "2026-03-15T09:00:00Z"},
		{"eve's next poll", "eve", "next_poll", "2026-03-15T15:00:00Z"},
	}
	byAgent := map[string]map[string]any{}
	for _, r := range rows {
		byAgent[r["agent"].(string)] = r
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := byAgent[tt.agent][tt.field]; got != tt.want {
				t.Fatalf("%s.%s = %v, want %v", tt.agent, tt.field, got, tt.want)
			}
		})
	}
}

func TestPeersOnEmptyNodeSaysHowToAddPeers(t *testing.T) {
	out, err := runCmd(t, "peers", "--dir", minimalNode(t))
	if err != nil || !strings.Contains(out, "list peers in AGENTS.md") {
		t.Fatalf("out %q err %v", out, err)
	}
}

func TestPeersReportsCorruptStateWithoutTouchingIt(t *testing.T) {
	dir := minimalNode(t)
	p := filepath.Join(dir, "mesh-state", "polling-cursors.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("{oops"), 0o644)
	_, err := runCmd(t, "peers", "--dir", dir)
	if err == nil || !strings.Contains(err.Error(), "polling-cursors.json:1:2") {
		t.Fatalf("err = %v", err)
	}
}

// minimalNode is a directory with a mesh.yaml and nothing else.
func minimalNode(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeT(t, dir, "mesh.yaml", "agent: ada\nurl: https://ada.example/\n")
	return dir
}

// TestPeerThatAnsweredASecondAgoIsNotShownOfflineAsOfJustNow guards issue
// 21.7: a quiet peer polled a second ago, whose agent last published 17
// days ago, read "offline as of just now", as if its host were down. The
// listing now says what the presence rests on and when we polled.
func TestPeerThatAnsweredASecondAgoIsNotShownOfflineAsOfJustNow(t *testing.T) {
	dir := minimalNode(t)
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("fay | https://fay.example/ | 2026-02-01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := state.New()
	fay := st.Cursor("https://fay.example/")
	fay.Agent, fay.LastSeenSeq = "fay", 9
	fay.LastPolled = peersNow.Add(-time.Second)
	fay.RecordSuccess(fay.LastPolled)
	fay.ManifestUpdated = peersNow.Add(-40 * 24 * time.Hour)
	fay.NewestEntry = peersNow.Add(-17 * 24 * time.Hour)
	fay.LastNews, fay.NextPoll = peersNow.Add(-17*24*time.Hour), peersNow.Add(6*time.Hour)
	if _, err := st.Save(filepath.Join(dir, "mesh-state", "polling-cursors.json"), time.Time{}); err != nil {
		t.Fatal(err)
	}
	got, err := runCmd(t, "peers", "--dir", dir, "--now", peersNow.Format(time.RFC3339))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "as of just now") {
		t.Errorf("table says %q:\n%s", "as of just now", got)
	}
	for _, want := range []string{"offline", "last published 2026-02-26 12:00 UTC", "just now"} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}

// A line of AGENTS.md that lists no agent (no '|', a bad URL) is skipped,
// so its agent is never polled: every command that reads AGENTS.md says so
// as AGENTS.md:LINE: why, and doctor fails on it. (It was one WARN among
// the heartbeat's log lines, hidden on a terminal; peers and doctor said
// nothing.)
func TestEveryCommandShowsTheAGENTSmdLinesItSkips(t *testing.T) {
	bob := newPeer(t, "bob")
	dir := newNode(t, nil)
	writeT(t, dir, "AGENTS.md", "# name | trace_url | joined\nbob | "+bob.URL+"/ | 2026-01-01\ncy https://cy.example/\ndee | ftp://dee.example/ | 2026-01-01\n")
	noPipe := "AGENTS.md:3: not an agent line (no '|'); line skipped"
	badURL := `AGENTS.md:4: agent dee: url "ftp://dee.example/": scheme must be http or https; line skipped`
	tests := []struct {
		name     string
		args     []string
		wantCode int
		inStdout bool // the lines are part of the result (the heartbeat's summary)
	}{
		{"heartbeat", []string{"heartbeat", "--dir", dir}, exitOK, true},
		{"peers", []string{"peers", "--dir", dir}, exitOK, false},
		{"peers --json", []string{"peers", "--dir", dir, "--json"}, exitOK, false},
		{"doctor", []string{"doctor", "--dir", dir, "--pages-url", bob.URL + "/"}, exitProblem, true},
		{"build", []string{"build", "--dir", dir}, exitOK, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runSetupCLI(t, tt.args...)
			where := stderr
			if tt.inStdout {
				where = stdout
			}
			if code != tt.wantCode || !strings.Contains(where, noPipe) || !strings.Contains(where, badURL) {
				t.Errorf("meshnode %s: exit %d, want %d and both skipped lines on %s\nstdout:\n%s\nstderr:\n%s",
					tt.name, code, tt.wantCode, map[bool]string{true: "stdout", false: "stderr"}[tt.inStdout], stdout, stderr)
			}
		})
	}
	code, stdout, _ := runSetupCLI(t, "doctor", "--dir", dir, "--pages-url", bob.URL+"/")
	if code != exitProblem || !strings.Contains(stdout, "FAIL") {
		t.Errorf("doctor: exit %d, want a failure:\n%s", code, stdout)
	}
}

func TestPeersSaysWhichPeersComputeWithAnotherRuleSet(t *testing.T) {
	dir := writePeersNode(t)
	founders := "rules: " + signal.RulesMesh2026v1 + "\nann | https://ann.example/\n"
	if err := os.WriteFile(filepath.Join(dir, "FOUNDERS.md"), []byte(founders), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "mesh-state", "polling-cursors.json")
	st, err := state.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	st.Cursor("https://ann.example/").Rules = signal.RulesMesh2026v1
	st.Cursor("https://eve.example/").Rules = "mesh-2099-1"
	if _, err := st.Save(path, time.Time{}); err != nil {
		t.Fatal(err)
	}
	got, err := runCmd(t, "peers", "--dir", dir, "--now", peersNow.Format(time.RFC3339))
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Count(got, "rules: ")
	if notes != 1 || !strings.Contains(got, "rules: peer eve computes with rule set mesh-2099-1, which this meshnode does not implement") {
		t.Errorf("want one rules line, about eve; got:\n%s", got)
	}
}
