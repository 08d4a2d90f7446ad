package signal

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

const ownTrace = `# Trace: Retry ladder

**Agent:** jolt
**Date:** 2026-03-10
**Type:** capability
**Category:** rock

## Work
Measured it.
`

// writeFiles writes name → content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func h(c string) string { return "sha256:" + strings.Repeat(c, 64) }

// testNode is a node "jolt" with one trace of its own (validated by bob
// and, ignored, by itself through the ledger), a validation of its own of
// bob's trace, a ledger with bob's trace and bob's validation, and a
// FOUNDERS.md that names bob.
func testNode(t *testing.T) string {
	dir := t.TempDir()
	ownHash := string(manifest.HashBytes([]byte(ownTrace)))
	writeFiles(t, dir, map[string]string{
		"traces/retry.md": ownTrace,
		"FOUNDERS.md":     "# FOUNDERS\nbob | https://bob.example/\n",
		"MANIFEST.md": "# MANIFEST\n\nagent: jolt\nurl: https://jolt.example/\nupdated: 2026-03-10T00:00:00Z\nsequence: 1\n\n## Traces\n\n" +
			"| seq | hash | file | type | status | submitted |\n|-----|------|------|------|--------|-----------|\n" +
			"| 1 | " + ownHash + " | traces/retry.md | capability | pending | 2026-03-10T00:00:00Z |\n",
		"validations/val-bbbbbbbbbbbb.md": "# VALIDATION\n\nvalidator: jolt\nvalidator_url: https://jolt.example/\n" +
			"trace_url: https://bob.example/traces/b.md\ntrace_hash: " + h("b") + "\nvalidated_at: 2026-03-11T00:00:00Z\n" +
			"result: fail\ntotal_score: 10\n\nscores:\n  substance: 2\n  uniqueness: 2\n  specificity: 2\n  actionability: 1\n  structure: 2\n  freshness: 1\n\nnotes: thin.\n",
		"mesh-state/ledger.json": `{
  "traces": {
    "` + h("b") + `": {"agent": "bob", "agent_url": "https://bob.example/", "seq": 3, "hash": "` + h("b") + `",
      "url": "https://bob.example/traces/b.md", "type": "knowledge", "category": "pebble"}
  },
  "validations": {
    "https://bob.example/ ` + ownHash + `": {"validator": "bob", "validator_url": "https://bob.example/", "trace_hash": "` + ownHash + `", "result": "pass", "total": 22},
    "https://jolt.example/ ` + ownHash + `": {"validator": "jolt", "validator_url": "https://jolt.example/", "trace_hash": "` + ownHash + `", "result": "fail", "total": 3}
  },
  "rejected": {}
}
`,
	})
	return dir
}

func TestLoadMergesLedgerAndOwnFiles(t *testing.T) {
	dir := testNode(t)
	in, err := Load(dir, "jolt", "https://jolt.example/")
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Founders) != 1 || in.Founders[0] != (Founder{Name: "bob", URL: "https://bob.example/"}) {
		t.Fatalf("founders %+v, want bob from FOUNDERS.md", in.Founders)
	}
	if len(in.Traces) != 2 || len(in.Validations) != 2 {
		t.Fatalf("loaded %d traces and %d validations, want 2 and 2: %+v", len(in.Traces), len(in.Validations), in)
	}
	r := Compute(in)
	ownHash := manifest.HashBytes([]byte(ownTrace))
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"own trace validated by bob, own vote ignored", statusOf(r, manifest.Hash(ownHash)), manifest.StatusValidated},
		{"bob's trace still pending: our validation file counts only with standing", statusOf(r, manifest.Hash(h("b"))), manifest.StatusPending},
		{"jolt earns capability rock from its own file's category", agentByName(r, "jolt").Signal, 10.0},
		{"jolt's validation is uncounted", agentByName(r, "jolt").ValidationsUncounted, 1},
		{"bob: founder 50 and 1 validation", agentByName(r, "bob").Signal, 51.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

func TestLoadEmptyNodeAndBadFiles(t *testing.T) {
	t.Run("a new node with no files has nothing to count", func(t *testing.T) {
		in, err := Load(t.TempDir(), "jolt", "https://jolt.example/")
		if err != nil || len(in.Traces)+len(in.Validations) != 0 {
			t.Fatalf("got %+v, %v", in, err)
		}
	})
	t.Run("a corrupt ledger is an error, not an empty mesh", func(t *testing.T) {
		dir := testNode(t)
		writeFiles(t, dir, map[string]string{"mesh-state/ledger.json": "{not json"})
		if _, err := Load(dir, "jolt", "https://jolt.example/"); err == nil || !strings.Contains(err.Error(), "ledger") {
			t.Fatalf("got %v, want a ledger error", err)
		}
	})
	t.Run("a file of ours that is not a validation counts for nothing and stops nothing", func(t *testing.T) {
		dir := testNode(t)
		want, err := Load(dir, "jolt", "https://jolt.example/")
		if err != nil {
			t.Fatal(err)
		}
		// publish holds these back with the reason; SIGNAL must not fail on them.
		writeFiles(t, dir, map[string]string{"validations/val-cccccccccccc.md": "hello", "validations/x.html": "<b>", "validations/notes.md": "# Notes\n"})
		got, err := Load(dir, "jolt", "https://jolt.example/")
		if err != nil || len(got.Validations) != len(want.Validations) {
			t.Fatalf("got %d validations, %v; want %d and no error", len(got.Validations), err, len(want.Validations))
		}
	})
}

func TestFromSnapshotReadsNothingAfterOpen(t *testing.T) {
	dir := testNode(t)
	want, err := Load(dir, "jolt", "https://jolt.example/")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := node.Open(dir, node.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The files on disk now say something else, or nothing readable: what
	// FromSnapshot returns must come from the snapshot alone.
	writeFiles(t, dir, map[string]string{
		"traces/retry.md":        "**Type:** knowledge\n**Category:** sand\n",
		"MANIFEST.md":            "not a manifest",
		"mesh-state/ledger.json": "{not json",
	})
	got, err := FromSnapshot(snap, "jolt", "https://jolt.example/")
	if err != nil {
		t.Fatalf("FromSnapshot read the disk again: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FromSnapshot gave\n%+v\nLoad gave\n%+v", got, want)
	}
}

// TestFromSnapshotHoldsTheLedgersRecordsNotCopies: the input's records of
// peers are the ledger's own, so that a heartbeat with news holds each
// record of its history once, not once in the ledger and once for SIGNAL.
func TestFromSnapshotHoldsTheLedgersRecordsNotCopies(t *testing.T) {
	snap, err := node.Open(testNode(t), node.Options{})
	if err != nil {
		t.Fatal(err)
	}
	copied := &ledger.Trace{Agent: "kai", AgentURL: "https://kai.example/", Seq: 1, Hash: manifest.Hash(h("b")),
		URL: "https://kai.example/traces/b.md", File: "traces/b.md"}
	snap.Ledger.AddCopy(copied)
	in, err := FromSnapshot(snap, "jolt", "https://jolt.example/")
	if err != nil {
		t.Fatal(err)
	}
	held := func(want any, got ...any) bool { return slices.Contains(got, want) }
	var traces, copies, votes []any
	for _, t := range in.Traces {
		traces = append(traces, t)
	}
	for _, t := range in.Copies {
		copies = append(copies, t)
	}
	for _, v := range in.Validations {
		votes = append(votes, v)
	}
	if r := snap.Ledger.Traces[manifest.Hash(h("b"))]; r == nil || !held(r, traces...) {
		t.Error("bob's trace in the input is not the ledger's record")
	}
	if !slices.ContainsFunc(snap.Ledger.SortedCopies(), func(c *ledger.Trace) bool { return held(c, copies...) }) {
		t.Error("kai's copy in the input is not the ledger's record")
	}
	bobs := 0
	for _, v := range snap.Ledger.Validations {
		if v.Validator == "bob" {
			bobs++
			if !held(v, votes...) {
				t.Error("bob's validation in the input is not the ledger's record")
			}
		}
	}
	if bobs != 1 {
		t.Fatalf("the ledger holds %d validations by bob, want 1", bobs)
	}
}

// TestInputGatheredBeforeARenameKeepsItsRecords: an input holds the
// ledger's records, and a change of the ledger (here a peer spelled
// another way) puts new ones in their place, so what SIGNAL computes from
// the input is what it computed before the change.
func TestInputGatheredBeforeARenameKeepsItsRecords(t *testing.T) {
	snap, err := node.Open(testNode(t), node.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := FromSnapshot(snap, "jolt", "https://jolt.example/")
	if err != nil {
		t.Fatal(err)
	}
	before := Compute(in)
	snap.Ledger.Rename("https://bob.example/", "https://bob.example:443/")
	for _, v := range in.Validations {
		if v.ValidatorURL == "https://bob.example:443/" {
			t.Errorf("the input's validation %s moved with the ledger's rename", v.Key())
		}
	}
	if after := Compute(in); !reflect.DeepEqual(after, before) {
		t.Errorf("SIGNAL of the same input after the ledger's rename:\n%+v\nbefore:\n%+v", after.Traces, before.Traces)
	}
}
