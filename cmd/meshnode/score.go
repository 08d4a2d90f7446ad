package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/peertext"
	"github.com/meshnode/meshnode/internal/pullrequest"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/setup"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/validation"
)

func init() {
	register(&command{
		name:    "score",
		summary: "list traces waiting for a person's score, or draft them in a pull request",
		usage: `Usage: meshnode score [--dir DIR] [--pr [--when-manual] [--base BRANCH] [--branch BRANCH]]
       meshnode score --explain FILE [--dir DIR] [--now TIME]

Lists the traces in the validation queue that wait for a score, with the
heuristic scorer's suggestion for each.

With --pr it opens, or updates, one pull request on GitHub that adds a draft
validation file for each waiting trace, prefilled with the suggestion and its
reasons (in an HTML comment below the fields, which parsers ignore). Edit the
scores and notes and merge: the next heartbeat publishes merged validations
like any other. A draft a person edited on the branch is never overwritten,
and a trace whose validation is already merged is not drafted again.

--pr needs GITHUB_TOKEN (contents and pull requests: write). The repository
is GITHUB_REPOSITORY (OWNER/REPO, set in Actions) or else, as for init, the
git remote "origin" on github.com; GITHUB_API_URL, when set, points it at
GitHub Enterprise Server. With --when-manual it does nothing unless
mesh.yaml's scorer is manual: the heartbeat workflow runs it that way.

With --explain it scores one trace file with the heuristic, as the next
heartbeat would, and prints each dimension's score with its reasons, the
total and pass or fail; uniqueness compares it with the node's ledger.

Examples:
  meshnode score
  meshnode score --explain traces/2026-03-01-retry-ladder.md
  GITHUB_TOKEN=$(gh auth token) meshnode score --pr

Flags:
`,
		run: runScoreCommand,
	})
}

type scoreOptions struct {
	nodeFlags
	pr, whenManual bool
	base, branch   string
	explain        string // a trace file to score and explain
	getenv         func(string) string
	// remote returns dir's origin remote; nil: no remote.
	remote func(dir string) (string, error)
	// list reads the node's validation queue's items at work (listQueue);
	// tests replace it.
	list func(dir string) ([]queue.Item, error)
}

// listQueue reads the items at work of the node's queue (Active): the
// waiting ones are among them, and the settled ones, the queue's
// history, are not read.
func listQueue(dir string) ([]queue.Item, error) {
	q, closeQueue, err := nodeQueue(dir, time.Now)
	if err != nil {
		return nil, err
	}
	defer closeQueue()
	a, err := q.Active()
	return a.Items, err
}

func runScoreCommand(ctx context.Context, e *env, args []string) error {
	o := scoreOptions{getenv: os.Getenv, remote: setup.OriginRemote, list: listQueue}
	fs := newFlagSet("score")
	o.add(fs)
	fs.BoolVar(&o.pr, "pr", false, "open or update the pull request of draft validations")
	fs.BoolVar(&o.whenManual, "when-manual", false, "with --pr: only when mesh.yaml's scorer is manual")
	fs.StringVar(&o.base, "base", pullrequest.DefaultBase, "the branch the pull request merges into")
	fs.StringVar(&o.branch, "branch", pullrequest.DefaultBranch, "the branch that holds the drafts")
	fs.StringVar(&o.explain, "explain", "", "score this trace `FILE` with the heuristic and say why")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("run 'meshnode score -h' for its flags", "score: unexpected argument %q", fs.Arg(0))
	}
	if o.explain != "" {
		return runExplain(ctx, e, o)
	}
	if o.now != "" {
		// The list and the drafts carry the queue's times, never the
		// clock's: --now would change nothing, so it is refused.
		return usagef("--now applies to --explain only", "score: --now without --explain")
	}
	return runScore(ctx, e, o)
}

func runScore(ctx context.Context, e *env, o scoreOptions) error {
	cfg, err := config.Load(o.dir)
	if err != nil {
		return fmt.Errorf("score: %w", err) // a *config.Error carries its own hint
	}
	if o.pr && o.whenManual && cfg.Scorer != config.ScorerManual {
		fmt.Fprintf(e.stdout, "scorer is %s, not manual: no pull request\n", cfg.Scorer)
		return nil
	}
	items, err := o.list(o.dir)
	if err != nil {
		return fmt.Errorf("score: read queue: %w", err)
	}
	waiting, unlisted, err := offeredItems(o.dir, waitingItems(items))
	if err != nil {
		return err
	}
	why, err := whyWithout(o.dir, cfg, waiting)
	if err != nil {
		return err
	}
	if !o.pr {
		printWaiting(e.stdout, waiting, why)
		printUnlisted(e.stdout, unlisted)
		return nil
	}
	return syncScoresPR(ctx, e, o, cfg, waiting, why, unlisted)
}

// offeredItems keeps the waiting items a person may be offered: those
// whose peer still lists their trace, as the node's ledger records it
// (ledger.ListedBy, which the heartbeat asks before it scores, publishes
// or suggests), and counts the others. An item of a peer that withdrew
// its trace, or that the ledger no longer records as listing it (an
// impostor forgotten, a mirror that gave way to the author), drafted,
// would name that peer's URL as where the trace is published. It reads
// only the items' peers' records (ledger.ListedByAll), not the history.
func offeredItems(dir string, items []queue.Item) (offered []queue.Item, unlisted int, err error) {
	if len(items) == 0 {
		return nil, 0, nil
	}
	asks := make([]ledger.PeerTrace, len(items))
	for i, it := range items {
		asks[i] = ledger.PeerTrace{URL: it.FromURL, Hash: it.Hash}
	}
	listings, err := ledger.ListedByAll(filepath.Join(dir, filepath.FromSlash(node.LedgerFile)), asks)
	if err != nil {
		return nil, 0, fmt.Errorf("score: read ledger: %w", err)
	}
	for i, it := range items {
		if l := listings[asks[i]]; l.Listed && !l.Withdrawn {
			offered = append(offered, it)
			continue
		}
		unlisted++
	}
	return offered, unlisted, nil
}

// printUnlisted says once how many waiting traces are not offered, and
// why.
func printUnlisted(w io.Writer, unlisted int) {
	if unlisted > 0 {
		fmt.Fprintf(w, "%d waiting trace(s) not offered: the peer they were queued from no longer lists them (a heartbeat drops them, or, withdrawn by their author, keeps them waiting until listed again)\n", unlisted)
	}
}

// whyWithout is noSuggestionWhy when one of items, those offered, has no
// suggestion and no note of why it waits (waitWhy), and "" otherwise: the
// standing it says is computed from the whole history, which a list of
// suggested or noted items does not need read.
func whyWithout(dir string, cfg *config.Config, items []queue.Item) (string, error) {
	for _, it := range items {
		if it.Suggested == nil && waitWhy(it) == "" {
			return noSuggestionWhy(dir, cfg)
		}
	}
	return "", nil
}

// waitNotes says, for each note the heartbeat leaves on an item without
// a suggestion (queue.WaitWithdrawn, queue.WaitFetchFailed;
// docs/decisions.md, "Names"), why that item waits, and why those items
// wait in the line below the list.
var waitNotes = map[string]struct{ item, items string }{
	queue.WaitWithdrawn:   {"its peer withdrew the trace", "their peer withdrew the trace"},
	queue.WaitFetchFailed: {"its trace failed to fetch again", "their trace failed to fetch again"},
}

// waitWhy is the note of why an item without a suggestion waits, and ""
// when the heartbeat did not note it: a noted item's reason is its own,
// so the node's standing need not be computed to say it. A note counts
// only on an item without a suggestion.
func waitWhy(it queue.Item) string {
	if it.Suggested != nil {
		return ""
	}
	if _, ok := waitNotes[it.Reason]; ok {
		return it.Reason
	}
	return ""
}

// noSuggestionWhy says why a waiting trace has no suggestion yet, the
// truth for this node: without standing the heartbeat suggests nothing
// (and says what to do next); with it, the manual scorer gets one at the
// next heartbeat, and any other scorer scores the trace itself.
func noSuggestionWhy(dir string, cfg *config.Config) (string, error) {
	in, err := signal.Load(dir, cfg.Agent, cfg.URL)
	if err != nil {
		return "", fmt.Errorf("score: standing: %w", err)
	}
	p := signal.ProgressOf(signal.Compute(in), cfg.URL)
	switch {
	case !p.HasStanding():
		return fmt.Sprintf("the heartbeat suggests scores only once this node has standing (%s); next: %s", p.Reason(), p.Next()), nil
	case cfg.Scorer == config.ScorerManual:
		return "the next heartbeat adds one", nil
	}
	return fmt.Sprintf("the scorer is %s: the next heartbeat scores it and publishes the validation itself", cfg.Scorer), nil
}

// waitingItems keeps the items a person may still score, oldest first as
// the queue lists them.
func waitingItems(items []queue.Item) []queue.Item {
	var out []queue.Item
	for _, it := range items {
		if it.Status == queue.StatusQueued || it.Status == queue.StatusInProgress {
			out = append(out, it)
		}
	}
	return out
}

// printWaiting lists the items waiting for a person's score; peer text
// passes through peertext.Clean, as in listInbox.
func printWaiting(w io.Writer, items []queue.Item, why string) {
	if len(items) == 0 {
		fmt.Fprintln(w, "no trace waits for a score")
		return
	}
	for _, it := range items {
		fmt.Fprintf(w, "%s  %s  %s\n    %s\n", peertext.Clean(it.ID), peertext.Clean(it.From), oneLineTitle(it), peertext.Clean(it.TraceURL))
		if it.Suggested == nil {
			// Why, unless the item was noted, is the same for every
			// item: said once, below the list.
			if noted := waitWhy(it); noted != "" {
				fmt.Fprintf(w, "    no suggestion yet: %s\n", waitNotes[noted].item)
				continue
			}
			fmt.Fprintln(w, "    no suggestion yet")
			continue
		}
		total := it.Suggested.Total()
		fmt.Fprintf(w, "    suggested %d/%d %s:", total, validation.MaxTotal, validation.ResultFor(total))
		for i, d := range validation.Dimensions {
			fmt.Fprintf(w, " %s %d", d, it.Suggested[i])
		}
		fmt.Fprintln(w)
	}
	printWithout(w, items, why)
}

// printWithout says once, for the list and for --pr alike, why the
// waiting items without a suggestion have none: why for those not noted,
// and each note (waitWhy) for those noted with it.
func printWithout(w io.Writer, items []queue.Item, why string) {
	without, noted := 0, map[string]int{}
	for _, it := range items {
		switch {
		case it.Suggested != nil:
		case waitWhy(it) != "":
			noted[waitWhy(it)]++
		default:
			without++
		}
	}
	for _, n := range slices.Sorted(maps.Keys(noted)) {
		fmt.Fprintf(w, "%d waiting trace(s) have no suggestion yet: %s\n", noted[n], waitNotes[n].items)
	}
	if without > 0 {
		fmt.Fprintf(w, "%d waiting trace(s) have no suggestion yet: %s\n", without, why)
	}
}

// oneLineTitle is the item's title as printed: on one line, cleaned of
// what a terminal would obey (peertext.Clean).
func oneLineTitle(it queue.Item) string {
	if t := strings.Join(strings.Fields(peertext.Clean(it.Title)), " "); t != "" {
		return t
	}
	return "(untitled)"
}
