package node_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// TestSignReadsNothingFromPeers: `meshnode sign`, the step that holds the
// log's key, reads the node's own published files and nothing the
// heartbeat learned from peers (issue 23: a signing step that parses
// nothing from peers). A heartbeat that polled a peer leaves a ledger,
// cursors and copies behind; sign reads none of them, nor AGENTS.md.
func TestSignReadsNothingFromPeers(t *testing.T) {
	dir := newNode(t, servePeer(t))
	origin := "127.0.0.1:1/tester"
	skey, vkey, err := translog.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, node.IdentityFile, []byte("# IDENTITY\n\nname: tester\n"+translog.IdentityKey+": "+vkey+"\n"))
	beat(t, dir)
	reads := countReads(t, nil, nil)
	changed, err := heartbeat.Sign(dir, "http://"+origin+"/", skey)
	if err != nil || !changed {
		t.Fatalf("Sign = %v, %v; want a new signed log", changed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, node.LogDir, "checkpoint")); err != nil {
		t.Fatalf("no checkpoint: %v", err)
	}
	own := []string{node.ManifestFile, node.ArchiveDir + "/", node.TracesDir + "/", node.ValidationsDir + "/", node.DisputesDir + "/"}
	for rel := range reads {
		if !ownFile(rel, own) {
			t.Errorf("sign read %s, which is not the node's own published file", rel)
		}
	}
	if reads[node.ManifestFile] != 1 {
		t.Errorf("sign read %s %d times, want once", node.ManifestFile, reads[node.ManifestFile])
	}
}

// ownFile reports whether rel is one of own, or under one ending in "/".
func ownFile(rel string, own []string) bool {
	for _, o := range own {
		if rel == o || strings.HasSuffix(o, "/") && strings.HasPrefix(rel, o) {
			return true
		}
	}
	return false
}
