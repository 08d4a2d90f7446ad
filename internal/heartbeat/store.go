package heartbeat

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

// publishResults publishes the judgements workers stored in the queue
// (docs/queue.md): each item done with a Result not yet published becomes
// the validation file the heartbeat's own scorer would have written, with
// the same standing rule, counted in validations_published; then the item
// is marked published (queue.Publish), so no result is published twice.
// A validation file already there (the node's scorer, a person, or a run
// that stopped before its mark) is kept and the item only marked. An
// item whose peer does not list its trace (listedByItsPeer) is dropped
// unpublished; one whose peer withdrew its trace (a worker scored it
// before) waits, unpublished and unmarked, until the trace is listed
// again. A heartbeat that finds nothing new loads no history for results
// that wait, for standing or for their withdrawn traces (waitQuietly).
func (n *job) publishResults() error {
	items, err := n.queueItems()
	if err != nil {
		return err
	}
	var todo []queue.Item
	for _, it := range items {
		if it.Status == queue.StatusDone && it.Result != nil && it.Result.PublishedAt.IsZero() && !n.own[it.Hash] {
			todo = append(todo, it)
		}
	}
	if len(todo) == 0 || n.waitQuietly(todo) {
		return nil
	}
	if err := n.history("workers' results to publish"); err != nil {
		return err
	}
	ok, err := n.standing()
	if err != nil {
		return err
	}
	if !ok {
		n.logWaitForStanding(todo)
		return nil
	}
	var marks []queue.Update
	var drops []string
	var gone []queue.Item
	for _, it := range todo {
		if !n.listedByItsPeer(it) {
			n.dropUnlisted(it)
			drops = append(drops, it.ID)
			gone = append(gone, it)
			continue
		}
		if !n.notWithdrawn(it) {
			// Scored before its author withdrew the trace: published, it
			// would name a URL taken down; it waits for the trace to be
			// listed again, unmarked, and the heartbeats without news
			// after this one leave it so without the history (stillHeld).
			n.holdResult(it)
			continue
		}
		held, err := n.publishResult(it)
		if err != nil {
			return err
		}
		if held {
			continue // not marked: published at a later heartbeat
		}
		marks = append(marks, queue.Update{Kind: queue.Publish, ID: it.ID, At: n.now})
	}
	results, err := n.queue.Update(marks...)
	if err != nil {
		return fmt.Errorf("mark results published: %w", err)
	}
	for i, err := range results {
		if err != nil {
			n.log.Warn("result not marked published", "id", marks[i].ID, "err", err.Error())
		}
	}
	if _, err := n.queue.Drop(drops...); err != nil {
		return fmt.Errorf("drop queue items: %w", err)
	}
	dropped := map[string]bool{}
	for _, id := range drops {
		dropped[id] = true
	}
	n.noteEnded(nil, dropped)
	return n.requeueDropped(gone)
}

// waitQuietly reports whether a heartbeat that uses its derived record
// may leave every result of todo unpublished without loading the
// history: the record says the node has no standing, or each result is
// one held back for its withdrawn trace (stillHeld). Without standing no
// result is published, whatever it is, and the record's standing is the
// one the history would give: SIGNAL is computed from the files its
// inputs digest, which a heartbeat that found nothing new has not
// changed, and from no clock (docs/decisions.md, "Names": "A worker's
// result waiting for standing, quietly").
func (n *job) waitQuietly(todo []queue.Item) bool {
	switch {
	case n.quiet == nil:
		return false
	case !n.quiet.HasStanding:
		n.logWaitForStanding(todo)
		return true
	}
	return n.stillHeld(todo)
}

// logWaitForStanding says that the results of todo wait for the node's
// standing.
func (n *job) logWaitForStanding(todo []queue.Item) {
	n.log.Info("stored results wait for standing", "count", len(todo))
}

// publishResult writes the validation of one stored result unless its
// file exists or the result cannot be a validation, and reports held when
// the budget of what one peer can make us publish (pubBudget) holds it
// back for a later heartbeat. A shared queue is written by workers and
// whoever else may write its database, so a result is published only for
// a trace this node fetched and verified itself, at the URL it was
// fetched from: the rule check holds a person's validation to.
func (n *job) publishResult(it queue.Item) (held bool, err error) {
	rel := path.Join(node.ValidationsDir, validation.FileName(it.Hash))
	if _, ok := n.snap.File(rel); ok {
		return false, nil
	}
	if t := n.ledger.Traces[it.Hash]; t == nil || !t.Verified || t.URL != it.TraceURL || it.ID != validation.ID(it.Hash) {
		n.log.Warn("stored result not published: not a trace this node verified", "id", it.ID, "url", it.TraceURL, "sha256", it.Hash)
		return false, nil
	}
	v, err := newValidation(n.cfg, it, it.Result.Scores, it.Result.Notes, n.now)
	if err != nil {
		// A worker stored what no validation may say (a score outside
		// 0–5): nothing is published and the item is marked, so it is
		// not tried at every heartbeat; the settled item keeps the result,
		// with its reasons and notes, and the log says why.
		n.log.Warn("stored result not published", "id", it.ID, "err", err.Error())
		return false, nil
	}
	if !n.publishing().take(it) {
		return true, nil
	}
	err = n.snap.WriteFile(rel, v.Format())
	if errors.Is(err, fs.ErrExist) {
		return false, nil // a person wrote it since the snapshot was taken
	}
	if err != nil {
		return false, fmt.Errorf("publish validation: %w", err)
	}
	n.sum.ValidationsPublished++
	n.log.Info("validated", "peer", it.From, "url", it.TraceURL, "sha256", it.Hash, "status", v.Result, "total", v.Total,
		"scorer", it.Result.Scorer)
	return false, nil
}

// newValidation is the validation of item's trace with these scores and
// notes, by this node, at now. Every validation the heartbeat writes comes
// from it, scored by the node's own scorer or stored in the queue by a
// worker (publishResult), so both get the same bounds: notes cut by
// validation.CleanNotes, and no file that validation.Check refuses.
func newValidation(cfg *config.Config, item queue.Item, scores validation.Scores, notes string, now time.Time) (*validation.Validation, error) {
	v := &validation.Validation{
		Validator: cfg.Agent, ValidatorURL: cfg.URL, TraceURL: item.TraceURL, TraceHash: item.Hash,
		ValidatedAt: now, Notes: validation.CleanNotes(notes),
	}
	v.SetScores(scores)
	if problems := v.Check(); len(problems) > 0 {
		return nil, fmt.Errorf("not a validation: %s", strings.Join(problems, "; "))
	}
	return v, nil
}
