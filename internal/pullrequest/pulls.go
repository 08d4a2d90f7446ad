package pullrequest

import (
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
)

// openPR finds the open pull request from the draft branch into base.
func (r *repo) openPR(o Options) (*github.PullRequest, error) {
	prs, _, err := r.gh.PullRequests.List(r.ctx, r.owner, r.name, &github.PullRequestListOptions{
		State: "open", Head: r.owner + ":" + o.Branch, Base: o.Base,
	})
	if err != nil {
		return nil, wrap("list open pull requests", err)
	}
	for _, pr := range prs {
		if pr.GetHead().GetRef() == o.Branch {
			return pr, nil
		}
	}
	return nil, nil
}

// upsertPR opens the pull request or brings the open one's title and body
// up to date.
func (r *repo) upsertPR(o Options, pr *github.PullRequest, p drafting, res Result) (Result, error) {
	title, body := Title(len(p.waiting)), Body(p.waiting, p.kept)
	if pr == nil {
		created, _, err := r.gh.PullRequests.Create(r.ctx, r.owner, r.name, &github.NewPullRequest{
			Title: github.String(title), Head: github.String(o.Branch), Base: github.String(o.Base),
			Body: github.String(body), MaintainerCanModify: github.Bool(true),
		})
		if err != nil {
			return res, wrap("open", err)
		}
		res.Number, res.URL, res.Created = created.GetNumber(), created.GetHTMLURL(), true
		return res, nil
	}
	res.Number, res.URL = pr.GetNumber(), pr.GetHTMLURL()
	res.Updated = len(res.Written) > 0
	if pr.GetTitle() == title && pr.GetBody() == body {
		return res, nil
	}
	if _, _, err := r.gh.PullRequests.Edit(r.ctx, r.owner, r.name, pr.GetNumber(), &github.PullRequest{
		Title: github.String(title), Body: github.String(body),
	}); err != nil {
		return res, wrap(fmt.Sprintf("update #%d", pr.GetNumber()), err)
	}
	res.Updated = true
	return res, nil
}

// Title is the pull request's title for n waiting traces.
func Title(n int) string {
	if n == 1 {
		return "Scores: 1 trace waits for a person"
	}
	return fmt.Sprintf("Scores: %d traces wait for a person", n)
}

// Body is the pull request's description: what to do, then one row per
// waiting trace with a link to it and to its draft file.
func Body(waiting []Draft, kept []string) string {
	edited := map[string]bool{}
	for _, k := range kept {
		edited[k] = true
	}
	var b strings.Builder
	b.WriteString("The node drafted a validation for each trace below, prefilled with the heuristic scorer's " +
		"suggestion and its reasons. Edit the scores, result, total and notes of each file, then merge: " +
		"the next heartbeat publishes merged validations like any other.\n\n" +
		"The node never overwrites a file you edited, and drafts nothing again once it is merged. " +
		"Delete a file from this branch to leave that trace unscored.\n\n")
	b.WriteString("| trace | from | suggested | file |\n|---|---|---|---|\n")
	for _, d := range waiting {
		file := "`" + d.Path + "`"
		if edited[d.Path] {
			file += " (edited)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", traceLink(d), cell(d.Agent), cell(d.Suggestion), file)
	}
	return b.String()
}

func traceLink(d Draft) string {
	title := d.Title
	if title == "" {
		title = d.TraceURL
	}
	if !strings.HasPrefix(d.TraceURL, "https://") && !strings.HasPrefix(d.TraceURL, "http://") {
		return cell(title)
	}
	target := strings.Join(strings.Fields(d.TraceURL), "%20")
	target = strings.NewReplacer("(", "%28", ")", "%29", "|", "%7C", "<", "%3C", ">", "%3E").Replace(target)
	return "[" + strings.NewReplacer("[", "\\[", "]", "\\]").Replace(cell(title)) + "](" + target + ")"
}

// cell keeps peer-supplied text (titles, names) on one table row.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.NewReplacer("\\", "\\\\", "|", "\\|", "<", "&lt;", ">", "&gt;").Replace(s)
}
