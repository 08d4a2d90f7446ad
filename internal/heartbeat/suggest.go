package heartbeat

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/validation"
)

// suggest stores the heuristic's scores on the items a person will score,
// so `meshnode score --pr` can prefill its drafts, in one write. Only an
// item whose peer still lists its trace is offered (offerable), as only
// such an item is scored or published by the other scorers; one whose
// peer withdrew its trace, or whose trace failed to fetch, is noted as
// waiting (noteWithdrawn, as for the automatic scorers; suggestions), so that the heartbeats after
// it need not read the history to look at it again (needsLook).
func (n *job) suggest(ctx context.Context) error {
	listed, err := n.queueItems()
	if err != nil {
		return err
	}
	if slices.ContainsFunc(listed, n.needsLook) {
		if err := n.history("queued traces to suggest scores for"); err != nil {
			return err
		}
	}
	if err := n.dropUnlistedQueued(); err != nil {
		return err
	}
	if err := n.noteWithdrawn(); err != nil {
		return err
	}
	var items []queue.Item
	for _, it := range n.items {
		if needsSuggestion(it) && n.offerable(it) {
			items = append(items, it)
		}
	}
	suggested, err := n.suggestions(ctx, items)
	if err != nil {
		return err
	}
	if err := n.storeSuggestions(suggested); err != nil {
		return err
	}
	return n.wait("waiting for a person: run 'meshnode score --pr' or edit validations/ by hand")
}

// suggestions returns the heuristic's scores for items, each a Suggest;
// an item it cannot score (its trace fails to fetch) gets none and is
// noted so (queue.WaitFetchFailed), unless a note not yet due to be tried
// again (needsLook) says so already: a heartbeat with news that fails
// again within suggestRetry writes nothing.
func (n *job) suggestions(ctx context.Context, items []queue.Item) ([]queue.Update, error) {
	if len(items) == 0 {
		return nil, nil
	}
	h, err := score.New("heuristic", nil, 0)
	if err != nil {
		return nil, err
	}
	known := n.known()
	var updates []queue.Update
	for _, it := range items {
		s, err := n.suggestion(ctx, h, &it, known)
		switch {
		case err == nil:
			updates = append(updates, queue.Update{Kind: queue.Suggest, ID: it.ID, At: n.now, Suggestion: s})
		case it.Reason != queue.WaitFetchFailed || n.needsLook(it):
			updates = append(updates, noteWait(it, queue.WaitFetchFailed, n.now))
		}
	}
	return updates, nil
}

// suggestion scores it with the heuristic h; an error is logged.
func (n *job) suggestion(ctx context.Context, h score.Scorer, it *queue.Item, known []score.Known) (*queue.Suggestion, error) {
	in, err := n.scoreInput(ctx, it)
	if err != nil {
		n.log.Warn("no suggestion for queued trace", "peer", it.From, "sha256", it.Hash, "err", err.Error())
		return nil, err
	}
	in.Known = known
	res, err := h.Score(ctx, *in)
	if err != nil {
		return nil, err
	}
	reasons := map[string][]string{}
	for i, d := range validation.Dimensions {
		reasons[d] = res.Reasons[i]
	}
	return &queue.Suggestion{Scores: res.Scores, Reasons: reasons, Notes: res.Notes}, nil
}

// needsSuggestion reports whether it waits for a person and has no
// suggestion yet.
func needsSuggestion(it queue.Item) bool {
	return it.Status == queue.StatusQueued && it.Suggested == nil
}

// suggestRetry is how long an item noted because its trace failed to
// fetch (queue.WaitFetchFailed) waits before a heartbeat without news
// reads the history to fetch it again: a peer down for a while is
// usually back within hours, and four tries a day cost four reads of the
// history where a try at every heartbeat cost 48 (the workflow runs
// twice an hour). A heartbeat with news tries it whatever the note's age.
const suggestRetry = 6 * time.Hour

// needsLook reports whether the heartbeat must read the history to
// suggest scores for it: it needs a suggestion and is not noted as
// waiting for its peer to list its trace again (queue.WaitWithdrawn),
// nor, for less than suggestRetry, for its trace to fetch
// (queue.WaitFetchFailed). Listings change only with news, which reads
// the history anyway: a heartbeat without news would find a withdrawn
// trace's item as it left it.
func (n *job) needsLook(it queue.Item) bool {
	if !needsSuggestion(it) {
		return false
	}
	switch it.Reason {
	case queue.WaitWithdrawn:
		return false
	case queue.WaitFetchFailed:
		return !n.now.Before(it.UpdatedAt.Add(suggestRetry))
	}
	return true
}

// offerable reports whether a person may be offered it: its peer lists
// its trace and has not withdrawn it (ledger.ListedBy, which
// `meshnode score` asks too). A trace its author withdrew waits, queued,
// until it is listed again.
func (n *job) offerable(it queue.Item) bool {
	if n.snap.Deferred() {
		return false // no history: nothing was asked of it (suggest)
	}
	listed, withdrawn := n.ledger.ListedBy(it.FromURL, it.Hash)
	return listed && !withdrawn
}

// noteWait returns the Note that sets why it waits (empty: it waits for
// nothing but a person).
func noteWait(it queue.Item, reason string, at time.Time) queue.Update {
	return queue.Update{Kind: queue.Note, ID: it.ID, Reason: reason, At: at}
}

// dropUnlistedQueued drops the queued items whose peer does not list
// their trace (listedByItsPeer) and queues each trace again from the
// agent that lists it (requeueDropped), as scoring does before it scores:
// a person is never asked to score a trace in the name of a peer that
// does not publish it, and the agent that does is queued in its stead.
// Listings change only with news, which loads the history: a heartbeat
// that did not load it checks nothing.
func (n *job) dropUnlistedQueued() error {
	if n.snap.Deferred() {
		return nil
	}
	var gone []queue.Item
	var ids []string
	dropped := map[string]bool{}
	for _, it := range n.items {
		if it.Status == queue.StatusQueued && !n.listedByItsPeer(it) {
			n.dropUnlisted(it)
			gone, ids, dropped[it.ID] = append(gone, it), append(ids, it.ID), true
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if _, err := n.queue.Drop(ids...); err != nil {
		return fmt.Errorf("drop queue items: %w", err)
	}
	n.noteEnded(nil, dropped)
	return n.requeueDropped(gone)
}

// storeSuggestions writes the suggestions and notes; an item a person
// settled meanwhile keeps the person's decision.
func (n *job) storeSuggestions(updates []queue.Update) error {
	if len(updates) == 0 {
		return nil
	}
	results, err := n.queue.Update(updates...)
	if err != nil {
		return fmt.Errorf("store suggestion: %w", err)
	}
	for i, err := range results {
		if err != nil {
			n.log.Warn("no suggestion stored", "id", updates[i].ID, "err", err.Error())
		}
	}
	return nil
}
