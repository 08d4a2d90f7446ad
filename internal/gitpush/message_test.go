package gitpush

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/heartbeat/report"
)

func TestMessageSaysWhatChanged(t *testing.T) {
	tests := []struct {
		name string
		s    *Summary
		want string
	}{
		{"no summary: the commit names its files", nil, ""},
		{"only the presence timestamp", &Summary{Changed: true, PeersPolled: 12}, "heartbeat: refresh presence"},
		{"issue example", &Summary{NewTraces: 3, PeersWithNew: 2, ValidationsPublished: 1, HashMismatches: make([]report.Mismatch, 1)},
			"heartbeat: 3 new traces from 2 peers, 1 validation published, 1 hash mismatch"},
		{"singular", &Summary{NewTraces: 1, PeersWithNew: 1}, "heartbeat: 1 new trace from 1 peer"},
		{"traces without a peer count", &Summary{NewTraces: 4}, "heartbeat: 4 new traces"},
		{"every part in order", &Summary{
			NewTraces: 2, PeersWithNew: 1, NewValidations: 5, Queued: 2, ValidationsPublished: 2,
			TracesPublished: 1, DisputesPublished: 1, HashMismatches: make([]report.Mismatch, 2), PeersLearned: 3,
			Unreachable: []string{"a"},
		}, "heartbeat: 2 new traces from 1 peer, 5 new peer validations, 2 traces queued, 2 validations published, " +
			"1 trace published, 1 dispute published, 2 hash mismatches, 3 peers learned, 1 peer unreachable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Message(tt.s); got != tt.want {
				t.Errorf("Message = %q\n         want %q", got, tt.want)
			}
		})
	}
}

func TestFilesMessageNamesWhatTheCommitChanges(t *testing.T) {
	tests := []struct {
		name    string
		changed []string
		want    string
	}{
		{"after init", []string{"mesh.yaml", "IDENTITY.md", "MANIFEST.md", "AGENTS.md"}, "node: update AGENTS.md, IDENTITY.md, MANIFEST.md, mesh.yaml"},
		{"files in directories", []string{"traces/a.md", "AGENTS.md", "traces/b.md", "mesh-state/ledger/x.json"},
			"node: update AGENTS.md, mesh-state/ (1 file), traces/ (2 files)"},
		{"more than six", []string{"a", "b", "c", "d", "e", "f", "g", "h"}, "node: update a, b, c, d, e, f, and 2 more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FilesMessage(tt.changed); got != tt.want {
				t.Errorf("FilesMessage = %q\n              want %q", got, tt.want)
			}
		})
	}
}

func TestReadSummaryReadsTheHeartbeatContract(t *testing.T) {
	s, err := ReadSummary(filepath.Join("testdata", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := "heartbeat: 3 new traces from 2 peers, 2 traces queued, 1 validation published, " +
		"1 dispute published, 1 hash mismatch, 1 peer learned, 1 peer unreachable"
	if got := Message(s); got != want {
		t.Errorf("Message = %q\n         want %q", got, want)
	}
	if !s.Changed || s.HashMismatches[0].Seq != 104 || s.Failures[0].Peer != "bridge" {
		t.Errorf("summary decoded wrong: %+v", s)
	}
}

func TestReadSummaryRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content string
	}{
		{"not json", "peers: 3\n"},
		{"wrong type", `{"new_traces": "three"}`},
		{"truncated", `{"new_traces": 3`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name+".json")
			if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadSummary(p); err == nil {
				t.Error("no error")
			}
		})
	}
	if _, err := ReadSummary(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
}

func FuzzParseSummary(f *testing.F) {
	if seed, err := os.ReadFile(filepath.Join("testdata", "summary.json")); err == nil {
		f.Add(seed)
	}
	f.Add([]byte(`{"changed": true}`))
	f.Add([]byte(`{"unreachable": null, "hash_mismatches": [{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSummary(data)
		if err != nil {
			return
		}
		if Message(s) == "" {
			t.Error("empty message")
		}
	})
}
