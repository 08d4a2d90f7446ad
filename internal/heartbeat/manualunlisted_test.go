package heartbeat

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/queuetest"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestTheManualScorerIsOfferedOnlyItemsWhosePeerListsTheirTrace: with the
// manual scorer the heartbeat suggests scores for a person, who drafts
// validations from them (`meshnode score --pr`). suggest checked nothing
// of the item's peer, unlike scoring and publishing (listedByItsPeer):
//
//   - "a stranger's item": the queue holds gamma's trace under a
//     stranger's URL (an older node's queue, a shared store). It got a
//     suggestion and stayed, so the person's draft named the stranger's
//     URL as where gamma's trace was published, and gamma's own listing
//     was never queued. Now it is dropped and the trace queued again
//     from gamma, which gets the suggestion (requeueDropped).
//   - "a trace its author withdrew": gamma no longer lists the trace. It
//     got a suggestion, and a person would publish a validation of a
//     trace at a URL its author took down. Now it gets none and waits,
//     queued: listed again, it is offered again. It is noted so
//     (queue.WaitWithdrawn), and a quiet heartbeat leaves it be
//     (TestAQuietManualNodeReadsNoHistoryForAWithdrawnTracesItem).
func TestTheManualScorerIsOfferedOnlyItemsWhosePeerListsTheirTrace(t *testing.T) {
	body := "# Gamma's finding\n\n## Work\n\nGamma measured it.\n"
	h := manifest.HashBytes([]byte(body))
	for _, tc := range []string{"a stranger's item", "a trace its author withdrew"} {
		t.Run(tc, func(t *testing.T) {
			gamma, stranger := newFakePeer(t), newFakePeer(t)
			gamma.publish("/g/", []string{"traces/001-g.md"}, map[string]string{"traces/001-g.md": body})
			stranger.publish("/s/", []string{"traces/001-s.md"}, map[string]string{"traces/001-s.md": body})
			dir := newNode(t, [][2]string{{"gamma", gamma.URL + "/g/"}}, "scorer: manual\n")
			beat(t, dir, testNow) // no standing: gamma's item waits, without a suggestion

			q := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile)))
			q.Now = func() time.Time { return testNow }
			if tc == "a stranger's item" {
				if n, err := q.Drop(validation.ID(h)); n != 1 || err != nil {
					t.Fatalf("setup: dropped %d items of gamma's trace (%v)", n, err)
				}
				from := stranger.URL + "/s/"
				it := queue.Item{ID: validation.ID(h), Hash: h, From: "stranger", FromURL: from,
					TraceURL: from + "traces/001-s.md", Type: "finding", Seq: 1, QueuedAt: testNow}
				if n, err := q.Enqueue(it); n != 1 || err != nil {
					t.Fatalf("setup: queued %d items (%v)", n, err)
				}
			} else {
				gamma.publishSeqs("/g/", 1, nil)
			}
			write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
			beat(t, dir, testNow.Add(time.Hour))

			got := queuetest.ItemOf(t, q, h)
			switch {
			case got == nil:
				t.Fatal("gamma's trace is not in the queue")
			case tc == "a stranger's item" && got.FromURL != gamma.URL+"/g/":
				t.Errorf("the stranger's item is still offered (from %s, suggested %v)", got.FromURL, got.Suggested != nil)
			case tc == "a stranger's item" && got.Suggested == nil:
				t.Error("gamma's trace, queued again from gamma, got no suggestion")
			case tc == "a trace its author withdrew" && got.Suggested != nil:
				t.Errorf("a trace its author withdrew got a suggestion: %v", *got.Suggested)
			case tc == "a trace its author withdrew" && got.Status != queue.StatusQueued:
				t.Errorf("the withdrawn trace's item is %s, want queued, waiting until it is listed again", got.Status)
			case tc == "a trace its author withdrew" && got.Reason != queue.WaitWithdrawn:
				t.Errorf("the withdrawn trace's item waits with reason %q, want %q, so a quiet heartbeat leaves it be", got.Reason, queue.WaitWithdrawn)
			}
		})
	}
}
