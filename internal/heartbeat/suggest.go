package heartbeat

import (
	"context"
	"fmt"
	"slices"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/validation"
)

// suggest stores the heuristic's scores on the items a person will score,
// so `meshnode score --pr` can prefill its drafts, in one write. Only an
// item whose peer still lists its trace is offered (offerable), as only
// such an item is scored or published by the other scorers.
func (n *job) suggest(ctx context.Context) error {
	h, err := score.New("heuristic", nil, 0)
	if err != nil {
		return err
	}
	listed, err := n.queueItems()
	if err != nil {
		return err
	}
	if slices.ContainsFunc(listed, needsSuggestion) {
		if err := n.history("queued traces to suggest scores for"); err != nil {
			return err
		}
	}
	if err := n.dropUnlistedQueued(); err != nil {
		return err
	}
	var items []queue.Item
	for _, it := range n.items {
		if needsSuggestion(it) && n.offerable(it) {
			items = append(items, it)
		}
	}
	var known []score.Known
	if len(items) > 0 {
		known = n.known()
	}
	var updates []queue.Update
	for _, it := range items {
		in, err := n.scoreInput(ctx, &it)
		if err != nil {
			n.log.Warn("no suggestion for queued trace", "peer", it.From, "sha256", it.Hash, "err", err.Error())
			continue
		}
		in.Known = known
		res, err := h.Score(ctx, *in)
		if err != nil {
			continue
		}
		reasons := map[string][]string{}
		for i, d := range validation.Dimensions {
			reasons[d] = res.Reasons[i]
		}
		updates = append(updates, queue.Update{Kind: queue.Suggest, ID: it.ID, At: n.now,
			Suggestion: &queue.Suggestion{Scores: res.Scores, Reasons: reasons, Notes: res.Notes}})
	}
	if err := n.storeSuggestions(updates); err != nil {
		return err
	}
	return n.wait("waiting for a person: run 'meshnode score --pr' or edit validations/ by hand")
}

// needsSuggestion reports whether it waits for a person and has no
// suggestion yet.
func needsSuggestion(it queue.Item) bool {
	return it.Status == queue.StatusQueued && it.Suggested == nil
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

// storeSuggestions writes the suggestions; an item a person settled
// meanwhile keeps the person's decision.
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
