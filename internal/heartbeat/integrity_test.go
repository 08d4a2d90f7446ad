package heartbeat

import (
	"context"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/integrity"
	"github.com/meshnode/meshnode/internal/integrity/integritytest"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
)

// The poll's fetch of an entry and the score input's fetch of a queued
// trace end every case of integritytest with its kind: the same verdict
// the worker and check reach on the same files.
func TestHeartbeatRefusesBadFilesLikeEveryCaller(t *testing.T) {
	base, cases := integritytest.Peer(t)
	client := fetch.New(fetch.Options{AllowPrivate: true, IgnoreRobots: true})
	pl := &poller{client: client, seen: func(string, manifest.Hash) bool { return false }, limits: limits{trace: node.MaxFileBytes}}
	cfg := config.Default()
	cfg.Gossip.AllowPrivateAddresses = true
	cfg.Limits.TraceBytes = node.MaxFileBytes
	n := &job{cfg: cfg, client: client, snap: &node.Snapshot{}, fetched: map[manifest.Hash]fetched{}}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got := pl.fetchEntry(context.Background(), peer{name: "peer", url: base}, manifest.Entry{Seq: 1, Hash: c.Hash, File: c.File}, &bodyHold{node: &nodeBudget{}})
			if k := entryKind(got); k != c.Want {
				t.Errorf("poll: %+v ends as %q, want %q", got, k, c.Want)
			}
			if c.Want != "" && !strings.Contains(got.warn, c.Want.Phrase()) {
				t.Errorf("poll: warning %q does not name %q", got.warn, c.Want.Phrase())
			}
			u := c.File
			if !strings.Contains(u, "://") {
				u = base + u
			}
			_, err := n.scoreInput(context.Background(), &queue.Item{Hash: c.Hash, FromURL: base, TraceURL: u})
			if k := integrity.KindOf(err); k != c.Want {
				t.Errorf("score input: %v ends as %q, want %q", err, k, c.Want)
			}
		})
	}
}

// entryKind is the integrity kind a poll's result stands for: a refusal
// is recorded as rejected, a mismatch as a dispute, the rest retried.
func entryKind(r entryResult) integrity.Kind {
	switch {
	case r.file != nil:
		return ""
	case r.mismatch != nil:
		return integrity.KindHash
	case r.rejected != "":
		return integrity.KindPath
	case r.retry && strings.Contains(r.warn, integrity.KindSize.Phrase()):
		return integrity.KindSize
	case r.retry:
		return integrity.KindUnavailable
	}
	return "none"
}
