package heartbeat

import (
	"context"
	"fmt"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/validation"
)

// suggest stores the heuristic's scores on the items a person will score,
// so `meshnode score --pr` can prefill its drafts, in one write.
func (n *job) suggest(ctx context.Context) error {
	h, err := score.New("heuristic", nil, 0)
	if err != nil {
		return err
	}
	listed, err := n.queueItems()
	if err != nil {
		return err
	}
	var items []queue.Item
	for _, it := range listed {
		if it.Status == queue.StatusQueued && it.Suggested == nil {
			items = append(items, it)
		}
	}
	var known []score.Known
	if len(items) > 0 {
		if err := n.history("queued traces to suggest scores for"); err != nil {
			return err
		}
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
