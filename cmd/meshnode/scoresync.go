package main

import (
	"context"
	"fmt"
	"io"

	"github.com/google/go-github/v60/github"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/pullrequest"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

// suggestions turns the waiting items that carry a suggestion into draft
// suggestions; the command says why the others have none (printWithout).
func suggestions(cfg *config.Config, items []queue.Item) (out []pullrequest.Suggestion) {
	for _, it := range items {
		if it.Suggested == nil {
			continue
		}
		v := validation.Validation{
			Validator: cfg.Agent, ValidatorURL: cfg.URL,
			TraceURL: it.TraceURL, TraceHash: it.Hash,
			// The queue time, not now: the draft must be the same bytes
			// on every run, or a person's edit could not be told apart.
			ValidatedAt: it.QueuedAt.UTC(), Notes: validation.CleanNotes(it.SuggestedNotes),
		}
		v.SetScores(*it.Suggested)
		out = append(out, pullrequest.Suggestion{
			Validation: v, Reasons: it.SuggestedReasons, Title: oneLineTitle(it), Agent: it.From,
		})
	}
	return out
}

func syncScoresPR(ctx context.Context, e *env, o scoreOptions, cfg *config.Config, items []queue.Item, why string, unlisted int) error {
	client, owner, repo, err := githubClient("score --pr", o.dir, o.getenv, o.remote)
	if err != nil {
		return err
	}
	sugg := suggestions(cfg, items)
	drafts := make([]pullrequest.Draft, len(sugg))
	for i, s := range sugg {
		drafts[i] = pullrequest.NewDraft(s)
	}
	res, err := pullrequest.Sync(ctx, pullrequest.Options{
		Client: client, Owner: owner, Repo: repo, Base: o.base, Branch: o.branch, Drafts: drafts,
	})
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	printSync(e.stdout, res, items, why)
	printUnlisted(e.stdout, unlisted)
	return ensureCheck(ctx, e, client, owner, repo, o.base, res)
}

// ensureCheck starts the check workflow for the pull request's head,
// which GitHub does not do for a pull request the job's token opened or
// updated (docs/github.md, "check.yml").
func ensureCheck(ctx context.Context, e *env, client *github.Client, owner, repo, base string, res pullrequest.Result) error {
	if res.Number == 0 {
		return nil
	}
	started, err := pullrequest.EnsureCheck(ctx, client, owner, repo, base, res.Number, res.Head)
	if err != nil {
		return fmt.Errorf("score: %w (the heartbeat job needs actions: write and statuses: read)", err)
	}
	if started {
		fmt.Fprintf(e.stdout, "started %s for pull request #%d (%q)\n", pullrequest.CheckWorkflow, res.Number, pullrequest.CheckContext)
	}
	return nil
}

func printSync(w io.Writer, res pullrequest.Result, items []queue.Item, why string) {
	switch {
	case res.Number == 0:
		fmt.Fprintln(w, "no draft to propose: nothing waits, or every validation is merged")
	case res.Created:
		fmt.Fprintf(w, "opened pull request #%d: %s\n", res.Number, res.URL)
	case res.Updated:
		fmt.Fprintf(w, "updated pull request #%d: %s\n", res.Number, res.URL)
	default:
		fmt.Fprintf(w, "pull request #%d is up to date: %s\n", res.Number, res.URL)
	}
	fmt.Fprintf(w, "drafts: %d written, %d kept as a person edited them, %d already merged\n",
		len(res.Written), len(res.Kept), len(res.Merged))
	printWithout(w, items, why)
}
