package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/pullrequest"
	"github.com/meshnode/meshnode/internal/setup"
)

// protectionCheck names doctor's finding about main's protection.
const protectionCheck = "protection"

// protectionFix is what to do when main's protection is missing or wrong.
const protectionFix = `add a ruleset on main alone: "Require status checks to pass" with meshnode check (source GitHub Actions), block force pushes and deletions, and no "Require a pull request" (docs/github.md, "Protecting main")`

// checkProtection reads the protection of main through the GitHub API, as
// far as the token allows, and says whether the heartbeat can push and
// whether the gate binds pull requests, or plainly that it cannot tell.
func checkProtection(ctx context.Context, dir string, getenv func(string) string) setup.Finding {
	f := setup.Finding{Check: protectionCheck, Status: setup.StatusWarn}
	if getenv("GITHUB_TOKEN") == "" {
		f.Message = "not checked: reading main's protection needs GITHUB_TOKEN"
		f.Fix = "GITHUB_TOKEN=$(gh auth token) meshnode doctor"
		return f
	}
	client, owner, repo, err := githubClient("doctor", dir, getenv, setup.OriginRemote)
	if err != nil {
		f.Message = fmt.Sprintf("not checked: %v", err)
		return f
	}
	p, err := pullrequest.ReadProtection(ctx, client, owner, repo, pullrequest.DefaultBase, HeartbeatStage)
	if err != nil {
		f.Message = fmt.Sprintf("cannot tell whether the gate binds or the heartbeat can push: %v", err)
		return f
	}
	return protectionVerdict(p, heartbeatSetsStatus(dir))
}

// heartbeatSetsStatus reports whether the node's heartbeat.yml commits
// with --check-status, which a main that requires the status needs.
func heartbeatSetsStatus(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(setup.WorkflowDir), setup.HeartbeatWorkflow))
	return err == nil && strings.Contains(string(data), "--check-status")
}

// protectionVerdict turns what was read into one finding: a rule that
// stops the heartbeat fails; a gate that binds is ok; anything less is a
// warning that says what is missing or what could not be read.
func protectionVerdict(p pullrequest.Protection, gated bool) setup.Finding {
	f := setup.Finding{Check: protectionCheck}
	switch {
	case len(p.Blockers) > 0:
		f.Status, f.Fix = setup.StatusFail, protectionFix
		f.Message = "the heartbeat cannot push: " + strings.Join(p.Blockers, "; ") + "; GitHub refuses its pushes (GH006) and the node stops publishing"
	case p.Binds && !gated:
		f.Status = setup.StatusFail
		f.Message = fmt.Sprintf("%s requires %q, but %s/%s commits without --check-status: GitHub refuses its pushes (GH006) and the node stops publishing", p.Branch, pullrequest.CheckContext, setup.WorkflowDir, setup.HeartbeatWorkflow)
		f.Fix = "restore " + setup.WorkflowDir + "/" + setup.HeartbeatWorkflow + " from the meshnode template repository"
	case p.Binds:
		f.Status = setup.StatusOK
		f.Message = fmt.Sprintf("%s requires %q, so the gate binds pull requests; the heartbeat sets it on its own commits and can push", p.Branch, pullrequest.CheckContext)
		if !p.ClassicRead {
			f.Message += "; this token cannot read classic branch protection: if main has any, it must not require a pull request"
		}
	case p.RulesetsRead && p.ClassicRead:
		f.Status, f.Fix = setup.StatusWarn, protectionFix
		f.Message = fmt.Sprintf("%s does not require %q: the gate does not bind, and a pull request can be merged past a red check", p.Branch, pullrequest.CheckContext)
		if !p.Classic {
			f.Message = p.Branch + " is not protected: the gate does not bind, and a pull request can be merged past a red check"
		}
	case p.RulesetsRead:
		f.Status, f.Fix = setup.StatusWarn, protectionFix+"; or run doctor with an administrator's token to read classic protection"
		f.Message = fmt.Sprintf("cannot tell whether the gate binds: no ruleset on %s requires %q, and this token cannot read classic branch protection (a workflow's token never can)", p.Branch, pullrequest.CheckContext)
	default:
		f.Status, f.Fix = setup.StatusWarn, "run doctor with a token that can read the repository's administration (GITHUB_TOKEN=$(gh auth token))"
		f.Message = fmt.Sprintf("cannot tell whether the gate binds or the heartbeat can push: this token can read neither %s's rulesets nor its classic protection", p.Branch)
	}
	return f
}
