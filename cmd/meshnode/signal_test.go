package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/signal"
)

func sha(c string) string { return "sha256:" + strings.Repeat(c, 64) }

// writeSignalNode writes a node "jolt" whose hand-written ledger holds
// ann's two traces and the validations bob and cy published, and one
// validation of jolt's own on disk.
func writeSignalNode(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"mesh.yaml":   "agent: jolt\nurl: https://jolt.example/\n",
		"FOUNDERS.md": "bob | https://bob.example/\n",
		"mesh-state/ledger.json": `{
  "traces": {
    "` + sha("a") + `": {"agent": "ann", "agent_url": "https://ann.example/", "seq": 1, "hash": "` + sha("a") + `",
      "url": "https://ann.example/traces/one.md", "type": "capability", "category": "rock"},
    "` + sha("c") + `": {"agent": "ann", "agent_url": "https://ann.example/", "seq": 2, "hash": "` + sha("c") + `",
      "url": "https://ann.example/traces/two.md", "type": "knowledge", "category": "pebble"}
  },
  "validations": {
    "https://bob.example/ ` + sha("a") + `": {"validator": "bob", "validator_url": "https://bob.example/", "trace_hash": "` + sha("a") + `", "result": "pass", "total": 24},
    "https://cy.example/ ` + sha("a") + `": {"validator": "cy", "validator_url": "https://cy.example/", "trace_hash": "` + sha("a") + `", "result": "fail", "total": 12},
    "https://bob.example/ ` + sha("c") + `": {"validator": "bob", "validator_url": "https://bob.example/", "trace_hash": "` + sha("c") + `", "result": "pass", "total": 20}
  },
  "rejected": {}
}
`,
		"validations/val-cccccccccccc.md": "# VALIDATION\n\nvalidator: jolt\nvalidator_url: https://jolt.example/\n" +
			"trace_url: https://ann.example/traces/two.md\ntrace_hash: " + sha("c") + "\nvalidated_at: 2026-03-11T00:00:00Z\n" +
			"result: fail\ntotal_score: 9\n\nscores:\n  substance: 2\n  uniqueness: 2\n  specificity: 2\n  actionability: 1\n  structure: 1\n  freshness: 1\n\nnotes: thin.\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestSignalJSONResolvesTracesAndRanksAgents(t *testing.T) {
	dir := writeSignalNode(t)
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"signal", "--dir", dir, "--now", "2026-03-14T00:00:00Z", "--json"}, &out, &errOut)
	if err != nil {
		t.Fatalf("signal: %v (stderr %s)", err, errOut.String())
	}
	var got struct {
		Agent      string `json:"agent"`
		ComputedAt string `json:"computed_at"`
		Agents     []struct {
			Agent  string  `json:"agent"`
			Signal float64 `json:"signal"`
			Tier   string  `json:"tier"`
		} `json:"agents"`
		Traces []struct {
			Hash    string `json:"hash"`
			Passing int    `json:"passing"`
			Seen    int    `json:"seen"`
			Status  string `json:"status"`
		} `json:"traces"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	// bob (a founder: 50, Established) passes ann/1; cy's fail counts
	// for nothing, cy having no standing: validated (capability rock 10).
	// ann/2 has bob's pass against jolt's fail, which does not count
	// either (knowledge pebble 2), so ann has 12.
	wantAgents := []string{"bob 52 Established", "ann 12 Provisional", "cy 0 Provisional", "jolt 0 Provisional"}
	var agents []string
	for _, a := range got.Agents {
		agents = append(agents, strings.Join([]string{a.Agent, formatPoints(a.Signal), a.Tier}, " "))
	}
	if strings.Join(agents, ", ") != strings.Join(wantAgents, ", ") {
		t.Errorf("agents %q, want %q", agents, wantAgents)
	}
	wantTraces := map[string]string{sha("a"): "1/1 validated", sha("c"): "1/1 validated"}
	for _, tr := range got.Traces {
		if s := formatPoints(float64(tr.Passing)) + "/" + formatPoints(float64(tr.Seen)) + " " + tr.Status; s != wantTraces[tr.Hash] {
			t.Errorf("trace %s: %s, want %s", tr.Hash[:12], s, wantTraces[tr.Hash])
		}
	}
	if got.Agent != "jolt" || got.ComputedAt != "2026-03-14T00:00:00Z" || len(got.Traces) != 2 {
		t.Errorf("header %q %q, %d traces", got.Agent, got.ComputedAt, len(got.Traces))
	}
}

func TestSignalTablePrintsBreakdownAndStatuses(t *testing.T) {
	dir := writeSignalNode(t)
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"signal", "--dir", dir, "--now", "2026-03-14T00:00:00Z"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"capability rock validated ×1 = 10", "founder (FOUNDERS.md) ×1 = 50", "1/1", "validated", "0 (+1 uncounted)", "https://ann.example/traces/one.md"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestSignalUserMistakes(t *testing.T) {
	tests := []struct {
		name string
		args func(dir string) []string
		want string
	}{
		{"no mesh.yaml", func(string) []string { return []string{"signal", "--dir", t.TempDir()} }, "mesh.yaml"},
		{"bad --now", func(dir string) []string { return []string{"signal", "--dir", dir, "--now", "yesterday"} }, "RFC3339"},
		{"stray argument", func(dir string) []string { return []string{"signal", "--dir", dir, "extra"} }, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args(writeSignalNode(t)), &out, &errOut)
			if code := exitCode(err, &errOut); code != exitUsage || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want %d mentioning %q", code, errOut.String(), exitUsage, tt.want)
			}
		})
	}
}

// TestSignalShowsWhoValidatedWhomFromVerdictTraces: dee validated ann's
// trace 1 in a trace of her own, never in a validation file; the trust
// graph shows it beside the files' votes, in --json and in the table.
func TestSignalShowsWhoValidatedWhomFromVerdictTraces(t *testing.T) {
	dir := writeSignalNode(t)
	p := filepath.Join(dir, filepath.FromSlash("mesh-state/ledger.json"))
	l, err := ledger.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	l.AddTrace(&ledger.Trace{Agent: "dee", AgentURL: "https://dee.example/", Seq: 4, Hash: manifest.Hash(sha("d")),
		File: "traces/004-validating-ann.md", Type: "validation", Verdicts: []ledger.Verdict{{Agent: "ann", Seq: 1, Result: "valid"}}})
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"signal", "--dir", dir, "--json"}, &out, &errOut); err != nil {
		t.Fatalf("signal: %v (stderr %s)", err, errOut.String())
	}
	var got struct {
		Trust []signal.Edge `json:"trust"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var edges []string
	for _, e := range got.Trust {
		edges = append(edges, fmt.Sprintf("%s→%s pass %d fail %d counted %d verdicts %d", e.Validator, e.Agent, e.Pass, e.Fail, e.Counted, e.Verdicts))
	}
	want := []string{
		"bob→ann pass 2 fail 0 counted 2 verdicts 0", "cy→ann pass 0 fail 1 counted 0 verdicts 0",
		"dee→ann pass 1 fail 0 counted 0 verdicts 1", "jolt→ann pass 0 fail 1 counted 0 verdicts 0",
	}
	if strings.Join(edges, "; ") != strings.Join(want, "; ") {
		t.Errorf("trust:\n%s\nwant:\n%s", strings.Join(edges, "\n"), strings.Join(want, "\n"))
	}
	out.Reset()
	if err := run(context.Background(), []string{"signal", "--dir", dir}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "VALIDATOR") || !regexp.MustCompile(`(?m)^dee\s+ann\s+1\s+0\s+0\s+1$`).MatchString(out.String()) {
		t.Errorf("table lacks the trust graph's dee→ann row:\n%s", out.String())
	}
}

// TestValidationsCellNamesWhatDidNotCount: the text table says how many of
// an agent's validations counted, and how many did not, and why.
func TestValidationsCellNamesWhatDidNotCount(t *testing.T) {
	for _, c := range []struct {
		a    signal.Agent
		want string
	}{
		{signal.Agent{ValidationsAuthored: 3}, "3"},
		{signal.Agent{ValidationsAuthored: 3, ValidationsUncounted: 1}, "3 (+1 uncounted)"},
		{signal.Agent{ValidationsAuthored: 3, ValidationsUnassigned: 2}, "3 (+2 unassigned)"},
		{signal.Agent{ValidationsAuthored: 0, ValidationsUncounted: 1, ValidationsUnassigned: 2}, "0 (+1 uncounted, +2 unassigned)"},
	} {
		if got := validationsCell(c.a); got != c.want {
			t.Errorf("%+v: %q, want %q", c.a, got, c.want)
		}
	}
}

// TestSignalGivesTheSameReportWithTheKeptPools: under mesh-2026-4,
// `meshnode signal` reads the pools the heartbeat keeps, and prints the
// same report with them, without them and with a damaged file.
func TestSignalGivesTheSameReportWithTheKeptPools(t *testing.T) {
	dir := writeSignalNode(t)
	writeT(t, dir, "FOUNDERS.md", "rules: mesh-2026-4\nbob | https://bob.example/\n")
	report := func() string {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), []string{"signal", "--dir", dir, "--now", "2026-03-14T00:00:00Z", "--json"}, &out, &errOut); err != nil {
			t.Fatalf("signal: %v (stderr %s)", err, errOut.String())
		}
		return out.String()
	}
	without := report()
	in, err := signal.Load(dir, "jolt", "https://jolt.example/")
	if err != nil {
		t.Fatal(err)
	}
	p := signal.NewPools()
	p.Compute(in)
	kept := signal.MarshalPools(p)
	if kept == nil {
		t.Fatal("no pools to keep")
	}
	for name, file := range map[string][]byte{"kept": kept, "damaged": kept[:len(kept)-9]} {
		writeT(t, dir, "mesh-state/assignment-pools.json", string(file))
		if got := report(); got != without {
			t.Errorf("with the %s pools:\n%s\nwant\n%s", name, got, without)
		}
	}
}
