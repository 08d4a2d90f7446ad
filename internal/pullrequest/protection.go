package pullrequest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"
)

// GitHubActionsApp is the integration ID of GitHub Actions: the source of
// every status a workflow sets with its token, which a ruleset may pin the
// required "meshnode check" to.
const GitHubActionsApp = 15368

// Protection is what a branch's protection means for the node: whether
// the gate binds pull requests into it (it requires CheckContext) and
// whether the heartbeat can still push its own commits, as far as the
// token could read. Rulesets are read through the rules of the branch
// (any token that can read the repository may); classic branch protection
// through its own endpoint, which a workflow's token can never read.
type Protection struct {
	Branch string
	// Binds: a ruleset or classic protection requires CheckContext.
	Binds bool
	// Blockers are the rules that refuse the heartbeat's pushes, each
	// worded for a person, sorted.
	Blockers []string
	// RulesetsRead and ClassicRead say what the token could read; Classic
	// says whether the branch has classic protection, when it was read.
	RulesetsRead, ClassicRead, Classic bool
}

// ReadProtection reads the protection of branch and of stage, the branch
// the heartbeat pushes its commits to before setting their status (a rule
// on it blocks the heartbeat as surely as one on branch).
func ReadProtection(ctx context.Context, gh *github.Client, owner, repo, branch, stage string) (Protection, error) {
	p := Protection{Branch: branch}
	if gh == nil || owner == "" || repo == "" || branch == "" {
		return p, errors.New("protection: a client, an owner, a repository and a branch are needed")
	}
	rules, err := branchRules(ctx, gh, owner, repo, branch)
	if err == nil && stage != "" {
		var staged []*github.RepositoryRule
		if staged, err = branchRules(ctx, gh, owner, repo, stage); err == nil {
			p.Blockers = append(p.Blockers, stageBlockers(stage, staged)...)
		}
	}
	switch {
	case err == nil:
		p.RulesetsRead = true
		p.rulesets(rules)
	case !cannotRead(err):
		return p, err
	}
	classic, _, err := gh.Repositories.GetBranchProtection(ctx, owner, repo, branch)
	switch {
	case err == nil:
		p.ClassicRead, p.Classic = true, true
		p.classic(classic)
	case errors.Is(err, github.ErrBranchNotProtected):
		p.ClassicRead = true
	case !cannotRead(err):
		return p, fmt.Errorf("protection: read the classic protection of %s: %w", branch, err)
	}
	slices.Sort(p.Blockers)
	p.Blockers = slices.Compact(p.Blockers)
	return p, nil
}

func branchRules(ctx context.Context, gh *github.Client, owner, repo, branch string) ([]*github.RepositoryRule, error) {
	rules, _, err := gh.Repositories.GetRulesForBranch(ctx, owner, repo, branch)
	if err != nil {
		return nil, fmt.Errorf("protection: read the rules of %s: %w", branch, err)
	}
	return rules, nil
}

// cannotRead reports an answer that says the token may not read it, or
// that the API does not have it: not an answer about the branch.
func cannotRead(err error) bool {
	var re *github.ErrorResponse
	if !errors.As(err, &re) || re.Response == nil {
		return false
	}
	switch re.Response.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return true
	}
	return false
}

// pushBlockers are the ruleset rules that refuse a direct push of the
// heartbeat's commit, with why.
var pushBlockers = map[string]string{
	"pull_request":         "requires a pull request before merging, but the heartbeat pushes its commits directly",
	"update":               "restricts updates to the bypass list, which no workflow should be on",
	"required_signatures":  "requires signed commits, and the heartbeat's are not signed",
	"merge_queue":          "requires a merge queue, which a direct push cannot join",
	"required_deployments": "requires deployments to succeed before a commit lands",
	"workflows":            "requires workflows to pass that the heartbeat does not run on its commit",
}

// statusCheck is one required check of a required_status_checks rule.
type statusCheck struct {
	Context       string `json:"context"`
	IntegrationID *int64 `json:"integration_id"`
}

func (p *Protection) rulesets(rules []*github.RepositoryRule) {
	for _, r := range rules {
		if why, ok := pushBlockers[r.Type]; ok {
			p.Blockers = append(p.Blockers, "a ruleset on "+p.Branch+" "+why)
		}
		if r.Type != "required_status_checks" || r.Parameters == nil {
			continue
		}
		var params struct {
			Checks []statusCheck `json:"required_status_checks"`
		}
		if err := json.Unmarshal(*r.Parameters, &params); err != nil {
			p.Blockers = append(p.Blockers, "a ruleset on "+p.Branch+" requires status checks this program cannot read")
			continue
		}
		for _, c := range params.Checks {
			p.requires("a ruleset", c.Context, c.IntegrationID)
		}
	}
}

// requires takes one required check: CheckContext binds the gate, as long
// as the source it is pinned to (if any) is GitHub Actions; any other
// check is one the heartbeat's commits never get.
func (p *Protection) requires(where, context string, app *int64) {
	switch {
	case context != CheckContext:
		p.Blockers = append(p.Blockers, fmt.Sprintf("%s on %s requires the status %q, which the heartbeat never sets on its commits", where, p.Branch, context))
	case app != nil && *app != GitHubActionsApp && *app != -1:
		p.Blockers = append(p.Blockers, fmt.Sprintf("%s on %s requires %q from the app %d, but the heartbeat's status comes from GitHub Actions (%d)", where, p.Branch, context, *app, GitHubActionsApp))
	default:
		p.Binds = true
	}
}

func (p *Protection) classic(c *github.Protection) {
	where := "classic branch protection"
	if rs := c.GetRequiredStatusChecks(); rs != nil {
		if rs.Checks != nil {
			for _, ch := range *rs.Checks {
				p.requires(where, ch.Context, ch.AppID)
			}
		} else if rs.Contexts != nil {
			for _, ctx := range *rs.Contexts {
				p.requires(where, ctx, nil)
			}
		}
	}
	if c.GetRequiredPullRequestReviews() != nil {
		p.Blockers = append(p.Blockers, where+" on "+p.Branch+" requires a pull request before merging, but the heartbeat pushes its commits directly")
	}
	if c.GetRestrictions() != nil {
		p.Blockers = append(p.Blockers, where+" on "+p.Branch+" restricts who can push")
	}
	if c.GetRequiredSignatures().GetEnabled() {
		p.Blockers = append(p.Blockers, where+" on "+p.Branch+" requires signed commits, and the heartbeat's are not signed")
	}
	if c.GetLockBranch().GetEnabled() {
		p.Blockers = append(p.Blockers, where+" on "+p.Branch+" locks the branch")
	}
}

// stageBlockers are the rules on the stage branch that refuse the
// heartbeat's push there: it replaces the branch with each commit before
// the commit has any status.
func stageBlockers(stage string, rules []*github.RepositoryRule) []string {
	var out []string
	for _, r := range rules {
		switch r.Type {
		case "required_status_checks", "pull_request", "update", "non_fast_forward", "required_signatures", "creation":
			out = append(out, fmt.Sprintf("a ruleset on %s (rule %s) refuses the heartbeat's push of each commit there before its status; target main alone", stage, strings.ReplaceAll(r.Type, "_", " ")))
		}
	}
	return out
}
