package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/meshnode/meshnode/internal/actions"
	"github.com/meshnode/meshnode/internal/gitpush"
)

// printCommit says what commit did; err is what stopped it, if anything.
func printCommit(e *env, res gitpush.Result, err error) {
	msg := res.Message
	switch {
	case !res.Committed && !res.Pushed && err != nil:
		// Nothing done, and the error says why: "unchanged" would be a guess.
	case !res.Committed && res.Pushed:
		fmt.Fprintf(e.stdout, "nothing new to commit; pushed %s, left unpushed before, in %d attempt(s)\n", commits(res.Unpushed), res.Attempts)
	case !res.Committed:
		fmt.Fprintln(e.stdout, "nothing to commit: the node's files are unchanged")
	case res.Keepalive:
		fmt.Fprintf(e.stdout, "nothing changed for long: made keepalive commit %s (pushed: %v)\n", short(res.Commit), res.Pushed)
	case res.Pushed && res.Unpushed > 1:
		fmt.Fprintf(e.stdout, "committed %s and pushed it with %s left unpushed before, in %d attempt(s): %s\n",
			short(res.Commit), commits(res.Unpushed-1), res.Attempts, msg)
	case res.Pushed:
		fmt.Fprintf(e.stdout, "committed and pushed %s in %d attempt(s): %s\n", short(res.Commit), res.Attempts, msg)
	default:
		fmt.Fprintf(e.stdout, "committed %s: %s\n", short(res.Commit), msg)
	}
	if len(res.Others) > 0 {
		fmt.Fprintf(e.stdout, "left alone, not the node's files: %s\n", listSome(res.Others, 5))
	}
	if len(res.Stashed) > 0 {
		fmt.Fprintf(e.stderr, "meshnode: your edits of %s conflict with the remote's: they are kept in 'git stash' (see 'git stash show -p')\n",
			strings.Join(res.Stashed, ", "))
	}
}

// commits says "1 commit" or "N commits"; a count it could not tell (the
// branch had no remote-tracking ref) is "the commits".
func commits(n int) string {
	switch {
	case n < 0:
		return "the local commits"
	case n == 1:
		return "1 commit"
	}
	return fmt.Sprintf("%d commits", n)
}

// listSome joins up to max names, then says how many more there are.
func listSome(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// reportToActions prints the annotations and appends the job summary.
func reportToActions(e *env, getenv func(string) string, s *gitpush.Summary) error {
	for _, a := range gitpush.Annotations(s) {
		fmt.Fprintln(e.stdout, a.String())
	}
	if path := getenv(actions.EnvStepSummary); path != "" {
		if err := actions.AppendSummary(path, gitpush.Markdown(s)); err != nil {
			return fmt.Errorf("commit: job summary: %w", err)
		}
	}
	return nil
}

// setCommitOutputs tells later steps and jobs what happened: the deploy job
// runs only when something changed.
func setCommitOutputs(getenv func(string) string, res gitpush.Result) error {
	path := getenv(actions.EnvOutput)
	if path == "" {
		return nil
	}
	for _, kv := range [][2]string{
		{"changed", strconv.FormatBool(res.Committed || res.Pushed)},
		{"pushed", strconv.FormatBool(res.Pushed)},
		{"sha", res.Commit},
	} {
		if err := actions.SetOutput(path, kv[0], kv[1]); err != nil {
			return fmt.Errorf("commit: step outputs: %w", err)
		}
	}
	return nil
}
