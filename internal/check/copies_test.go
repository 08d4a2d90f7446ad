package check

import (
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
)

// copiesFiles are a peer's file of mesh-state/copies/ and an older node's
// single file: the node's cache of peers' traces, never committed
// (docs/decisions.md, "What the node commits").
var copiesFiles = []string{node.StateDir + "/copies/bob_0000abcd.json", node.CopiesFile}

const copiesJSON = `{"copies": {}}` + "\n"

// TestHeartbeatGatePassesTheCopiesUntracked: the heartbeat's commit that
// takes an older node's copies out of git (they stay on disk) changes
// their paths, and the gate passes it as the heartbeat's own.
func TestHeartbeatGatePassesTheCopiesUntracked(t *testing.T) {
	dir := cleanNode(t)
	for _, f := range copiesFiles {
		write(t, dir, f, copiesJSON)
	}
	if ps := Check(Options{Dir: dir, Base: dir, Files: copiesFiles, Agent: agent, URL: ourURL, Heartbeat: true}); len(ps) != 0 {
		t.Errorf("the heartbeat's commit untracking the copies: %v", lines(ps))
	}
}

// TestPullRequestAddingCopiesIsRefused: a pull request that force-adds
// copies past the .gitignore, or changes those the node has, is refused:
// the copies are the heartbeat's to write, and the site republishes them.
func TestPullRequestAddingCopiesIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		base string // the node's own copy, "" for none
	}{
		{"added", ""},
		{"changed", copiesJSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, pr := cleanNode(t), cleanNode(t)
			for _, f := range copiesFiles {
				if tc.base != "" {
					write(t, base, f, tc.base)
				}
				write(t, pr, f, `{"copies": {"`+strings.Repeat("a", 64)+`": {"agent_url": "https://bob.example/", "text": "forged"}}}`+"\n")
			}
			ps := Check(Options{Dir: pr, Base: base, Files: copiesFiles, Agent: agent, URL: ourURL})
			if len(ps) != len(copiesFiles) {
				t.Fatalf("%d problems for %d files: %v", len(ps), len(copiesFiles), lines(ps))
			}
			for _, p := range ps {
				if !strings.Contains(p.Message, "written only by the heartbeat") {
					t.Errorf("problem %s, want it written only by the heartbeat", p)
				}
			}
		})
	}
}
