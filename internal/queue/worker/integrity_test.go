package worker_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/integrity/integritytest"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/worker"
	"github.com/meshnode/meshnode/internal/score"
)

// The worker ends every case of integritytest as the heartbeat does:
// done when the file verifies, failed with the kind's words otherwise
// (before integrity it took traces of up to 4 MiB, four times what the
// heartbeat reads, and worded each refusal its own way).
func TestWorkerRefusesBadFilesLikeEveryCaller(t *testing.T) {
	base, cases := integritytest.Peer(t)
	scorer, err := score.New("heuristic", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			s := queue.Open(filepath.Join(t.TempDir(), "queue.json"))
			u := c.File
			if !strings.Contains(u, "://") {
				u = base + u
			}
			it := queue.Item{ID: fmt.Sprintf("item%d", i), Hash: c.Hash, From: "peer", FromURL: base, TraceURL: u, QueuedAt: time.Now().UTC()}
			if _, err := s.Enqueue(it); err != nil {
				t.Fatal(err)
			}
			w := &worker.Worker{Store: s, Owner: "w1", Scorer: scorer,
				Client: fetch.New(fetch.Options{AllowPrivate: true, IgnoreRobots: true})}
			status, err := w.One(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			all, err := s.List()
			if err != nil || len(all) != 1 {
				t.Fatalf("list: %v %v", all, err)
			}
			switch {
			case c.Want == "" && status != queue.StatusDone:
				t.Errorf("status %q (%s), want done", status, all[0].Reason)
			case c.Want != "" && (status != queue.StatusFailed || !strings.Contains(all[0].Reason, c.Want.Phrase())):
				t.Errorf("status %q (%s), want failed with %q", status, all[0].Reason, c.Want.Phrase())
			}
		})
	}
}
