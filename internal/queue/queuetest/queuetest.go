// Package queuetest is the conformance suite every queue.Store passes: the
// file store and the PostgreSQL adapter run the same tests
// (docs/queue.md).
package queuetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
)

// NewStore returns an empty, initialized store of its own for one test,
// whose clock (what stamps items enqueued without a QueuedAt, and dates
// the retention of settled items) is now.
type NewStore func(t *testing.T, now func() time.Time) queue.Store

// Run runs the conformance suite against the stores newStore returns.
func Run(t *testing.T, newStore NewStore) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s queue.Store)
	}{
		{"InitTwice", testInitTwice},
		{"EnqueueIdempotent", testEnqueueIdempotent},
		{"EnqueueClash", testEnqueueClash},
		{"QueuedOldestFirst", testQueuedOldestFirst},
		{"ClaimMaxAndFilter", testClaimMaxAndFilter},
		{"ClaimResumes", testClaimResumes},
		{"ClaimsExclusiveUnderConcurrency", testClaimsExclusive},
		{"LeaseExpiresAndIsTakenOver", testLeaseTakeover},
		{"RenewKeepsVersion", testRenew},
		{"CompareAndSwap", testCompareAndSwap},
		{"Statuses", testStatuses},
		{"NothingSettledWithoutUpdate", testNothingSettled},
		{"ResultStoredWithDone", testResult},
		{"ResultPublishedOnce", testPublish},
		{"ListInbox", testList},
		{"ActiveLeavesSettledItemsCounted", testActive},
		{"SettledItemsKeepTheirTracesOutOfTheQueue", testSettledDedup},
		{"SettledItemGoesBackToWork", testBackToWork},
		{"SettledTraceListedUnderAnotherID", testSettledTraceUnderAnotherID},
		{"DropRemovesItemsAtWorkOnly", testDrop},
		{"RenameMovesAPeersItemsAsTheyAre", testRename},
		{"NoteMarksAQueuedItemUntilItIsSuggested", testNoteMarksAQueuedItemUntilItIsSuggested},
		{"ClaimPassesOverAnItemWaitingForItsTrace", testClaimPassesOverWithheld},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t, func() time.Time { return T0 })) })
	}
	t.Run("SettledItemsLeaveAfterTheRetention", func(t *testing.T) {
		now := T0
		testRetention(t, newStore(t, func() time.Time { return now }), &now)
	})
	t.Run("ResultToPublishOutlivesTheRetention", func(t *testing.T) {
		now := T0
		testResultOutlivesRetention(t, newStore(t, func() time.Time { return now }), &now)
	})
	t.Run("ExpiredTraceIsQueuedAgainBeforeAnyWrite", func(t *testing.T) {
		now := T0
		testExpiredQueuedAgain(t, newStore(t, func() time.Time { return now }), &now)
	})
}

// T0 is the suite's clock: near the real time, so a store that drops
// settled items by the real clock (queue.SettledRetention) keeps them.
var T0 = time.Now().UTC().Truncate(time.Second)

// Item returns the n-th test item, queued n seconds after T0.
func Item(n int) queue.Item {
	hex := fmt.Sprintf("%012x%052x", n, n)
	return queue.Item{
		ID: hex[:12], Hash: manifest.Hash("sha256:" + hex), From: "ada", FromURL: "https://ada.example/traces/",
		TraceURL: fmt.Sprintf("https://ada.example/traces/t%d.md", n), Type: "finding", Title: fmt.Sprintf("trace %d", n),
		Seq: manifest.Seq(n), QueuedAt: T0.Add(time.Duration(n) * time.Second),
	}
}
