package site

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

func loadFixture(t *testing.T, dir string) *Node {
	t.Helper()
	n, err := Load(dir, fixtureNow)
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return n
}

func traceByFile(t *testing.T, n *Node, file string) *Trace {
	t.Helper()
	for _, tr := range n.Traces {
		if tr.File == file {
			return tr
		}
	}
	t.Fatalf("no trace %s", file)
	return nil
}

// TestTracesShowTheLedgersValidationsAndSignalsResolution checks, per
// trace of the fixture, who validated it (from mesh-state/ledger.json,
// oldest first) and the status SIGNAL resolves, which overrides the
// MANIFEST's column.
func TestTracesShowTheLedgersValidationsAndSignalsResolution(t *testing.T) {
	n := loadFixture(t, "testdata/node")
	tests := []struct {
		name, file    string
		status        manifest.Status
		validators    []string
		passing, seen int
	}{
		{"a founder's pass validates; bob's, without standing, does not count", "traces/001-hello-mesh.md", "validated", []string{"ada", "bob"}, 1, 1},
		{"bob's fail, without standing, does not split the founder's pass", "traces/002-citation-graph.md", "validated", []string{"ada", "bob"}, 1, 1},
		{"one fail fails a trace the manifest calls pending", "traces/003-hostile-input.md", "failed", []string{"cyd"}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := traceByFile(t, n, tt.file)
			var got []string
			for _, v := range tr.Received {
				got = append(got, v.Validator)
			}
			if strings.Join(got, ",") != strings.Join(tt.validators, ",") {
				t.Errorf("validators = %v, want %v", got, tt.validators)
			}
			if tr.Status != tt.status || tr.Passing != tt.passing || tr.Seen != tt.seen {
				t.Errorf("status %s %d/%d, want %s %d/%d", tr.Status, tr.Passing, tr.Seen, tt.status, tt.passing, tt.seen)
			}
		})
	}
}

func TestCitationsLinkOurTracesAndPeersBothWays(t *testing.T) {
	n := loadFixture(t, "testdata/node")
	prepare(n)
	tests := []struct {
		name, file     string
		cites, citedBy string
	}{
		{"a body mention is a citation", "traces/001-hello-mesh.md", "ada/1", "ada/2,fern/2"},
		{"declared citations, cited by a peer", "traces/002-citation-graph.md", "fern/1,ada/2,bob/3", "bob/3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := traceByFile(t, n, tt.file)
			if got := strings.Join(tr.Cites, ","); got != tt.cites {
				t.Errorf("cites %s, want %s", got, tt.cites)
			}
			if got := strings.Join(tr.CitedBy, ","); got != tt.citedBy {
				t.Errorf("cited by %s, want %s", got, tt.citedBy)
			}
		})
	}
}

// TestOurValidationRecordedInTheLedgerIsNotCountedTwice: the ledger holds
// fern's validation of ada/2 too; only the file in validations/ counts.
func TestOurValidationRecordedInTheLedgerIsNotCountedTwice(t *testing.T) {
	n := loadFixture(t, "testdata/node")
	byFern := 0
	for _, v := range n.Votes {
		if v.Validator == "fern" {
			byFern++
		}
	}
	if len(n.Given) != 2 || byFern != 2 {
		t.Errorf("given %d, votes by fern %d; want 2 and 2", len(n.Given), byFern)
	}
}

func TestPeersCarryPresenceAndWhatTheLedgerHolds(t *testing.T) {
	n := loadFixture(t, "testdata/node")
	want := map[string]struct {
		presence      string
		traces, votes int
	}{
		"ada": {"active", 2, 3},  // manifest updated 30 minutes ago
		"bob": {"stale", 1, 2},   // 5 hours ago: past 150 minutes, within a week
		"cyd": {"offline", 0, 1}, // 16 days ago
		"eve": {"active", 1, 0},  // no updated:, but its newest entry is an hour old
	}
	for _, p := range n.Peers {
		t.Run(p.Name, func(t *testing.T) {
			w := want[p.Name]
			if p.Presence != w.presence || p.Traces != w.traces || p.Validations != w.votes {
				t.Errorf("%s: %s, %d traces, %d validations; want %+v", p.Name, p.Presence, p.Traces, p.Validations, w)
			}
		})
	}
	if len(n.Peers) != len(want) {
		t.Errorf("%d peers, want %d", len(n.Peers), len(want))
	}
}

func TestDisputesListPublishedOnesAndTheLedgersRejections(t *testing.T) {
	n := loadFixture(t, "testdata/node")
	var got []string
	for _, d := range n.Disputes {
		got = append(got, d.Agent+" "+d.File)
	}
	want := "cyd disputes/dispute-0a1b2c3d4e5f.md|bob " // newest first; bob's rejection was not published
	if strings.Join(got, "|") != want {
		t.Errorf("disputes %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestSignalStandingsAreComputedWithTheFounders(t *testing.T) {
	n := loadFixture(t, "testdata/node")
	if n.Signal != 6 || n.Tier != "Provisional" {
		t.Errorf("fern: SIGNAL %v %s, want 6 Provisional (its validations count for nothing)", n.Signal, n.Tier)
	}
	if len(n.Signals) == 0 || n.Signals[0].Agent != "ada" || n.Signals[0].Tier != "Established" || len(n.Signals[0].Breakdown) == 0 {
		t.Errorf("first standing %+v, want ada, Established (a founder), with a breakdown", n.Signals[0])
	}
}

// TestNodeIsNamedByMeshYAMLOrElseByItsManifest: mesh.yaml is the
// heartbeat's source of truth, but a folder of traces without one still
// builds under MANIFEST.md's agent and url.
func TestNodeIsNamedByMeshYAMLOrElseByItsManifest(t *testing.T) {
	tests := []struct {
		name, meshYAML     string // "" removes mesh.yaml
		wantAgent, wantURL string
		wantErr            bool
	}{
		{"mesh.yaml names the node", "agent: willow\nurl: https://willow.example.org/\n", "willow", "https://willow.example.org/", false},
		{"no mesh.yaml: MANIFEST names it", "", "fern", "https://fern.example.org/", false},
		{"a broken mesh.yaml is an error", "agent: fern\nurl: https://fern.example.org/\nnonsense: 1\n", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyNode(t)
			p := filepath.Join(dir, "mesh.yaml")
			os.Remove(p)
			if tt.meshYAML != "" {
				os.WriteFile(p, []byte(tt.meshYAML), 0o644)
			}
			n, err := Load(dir, fixtureNow)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "mesh.yaml") {
					t.Fatalf("err = %v, want one naming mesh.yaml", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n.Agent != tt.wantAgent || n.URL != tt.wantURL {
				t.Errorf("node %s %s, want %s %s", n.Agent, n.URL, tt.wantAgent, tt.wantURL)
			}
		})
	}
}

func TestTemplatePlaceholderSaysToRunInit(t *testing.T) {
	dir := t.TempDir()
	data := "# MANIFEST\n\n<!-- meshnode:template: 'meshnode init' replaces this file -->\n"
	if err := os.WriteFile(filepath.Join(dir, "MANIFEST.md"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir, fixtureNow)
	// The CLI turns ErrTemplate into the hint to run meshnode init.
	if !errors.Is(err, ErrTemplate) {
		t.Fatalf("Load of the template = %v, want ErrTemplate", err)
	}
}
