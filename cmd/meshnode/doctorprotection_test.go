package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/pullrequest/fakegithub"
	"github.com/meshnode/meshnode/internal/setup"
)

// rule builds one rule of a ruleset as GitHub's JSON has it.
func rule(typ string, params map[string]any) map[string]any {
	r := map[string]any{"type": typ, "ruleset_source_type": "Repository", "ruleset_source": "alice/mesh-node", "ruleset_id": 7}
	if params != nil {
		r["parameters"] = params
	}
	return r
}

func requiredCheck(context string, app int) map[string]any {
	return rule("required_status_checks", map[string]any{"strict_required_status_checks_policy": false,
		"required_status_checks": []any{map[string]any{"context": context, "integration_id": app}}})
}

// The ruleset docs/github.md recommends: the gate required from GitHub
// Actions, no force push, no deletion, on main alone.
var recommendedRules = []map[string]any{requiredCheck("meshnode check", 15368), rule("deletion", nil), rule("non_fast_forward", nil)}

// TestDoctorReadsTheProtectionOfMain: the fake GitHub plays each answer a
// repository's protection can give, and doctor says whether the gate
// binds and whether the heartbeat can push, or that it cannot tell.
func TestDoctorReadsTheProtectionOfMain(t *testing.T) {
	tests := []struct {
		name     string
		rules    fakegithub.Rules
		status   setup.Status
		contains string
	}{
		{"the recommended ruleset", fakegithub.Rules{Branch: map[string][]map[string]any{"main": recommendedRules}, ClassicStatus: http.StatusForbidden},
			setup.StatusOK, `main requires "meshnode check", so the gate binds pull requests; the heartbeat sets it on its own commits and can push; this token cannot read classic`},
		{"the recommended ruleset, read with an administrator's token", fakegithub.Rules{Branch: map[string][]map[string]any{"main": recommendedRules}},
			setup.StatusOK, `the heartbeat sets it on its own commits and can push`},
		{"a ruleset that requires a pull request", fakegithub.Rules{Branch: map[string][]map[string]any{"main": append([]map[string]any{rule("pull_request", map[string]any{"required_approving_review_count": 0})}, recommendedRules...)}, ClassicStatus: http.StatusForbidden},
			setup.StatusFail, "the heartbeat cannot push: a ruleset on main requires a pull request before merging, but the heartbeat pushes its commits directly; GitHub refuses its pushes (GH006)"},
		{"the check pinned to another app", fakegithub.Rules{Branch: map[string][]map[string]any{"main": {requiredCheck("meshnode check", 99)}}, ClassicStatus: http.StatusForbidden},
			setup.StatusFail, `requires "meshnode check" from the app 99, but the heartbeat's status comes from GitHub Actions (15368)`},
		{"another required check the heartbeat never gets", fakegithub.Rules{Branch: map[string][]map[string]any{"main": {requiredCheck("meshnode check", 15368), requiredCheck("ci/test", 15368)}}, ClassicStatus: http.StatusForbidden},
			setup.StatusFail, `requires the status "ci/test", which the heartbeat never sets`},
		{"a ruleset on every branch, the stage included", fakegithub.Rules{Branch: map[string][]map[string]any{"main": recommendedRules, HeartbeatStage: recommendedRules}, ClassicStatus: http.StatusForbidden},
			setup.StatusFail, "a ruleset on meshnode/heartbeat (rule required status checks) refuses the heartbeat's push"},
		{"classic protection requiring reviews, read by an administrator", fakegithub.Rules{Classic: map[string]any{
			"required_status_checks":        map[string]any{"strict": false, "contexts": []string{"meshnode check"}},
			"required_pull_request_reviews": map[string]any{"required_approving_review_count": 1}}},
			setup.StatusFail, "classic branch protection on main requires a pull request before merging"},
		{"classic protection requiring the check, read by an administrator", fakegithub.Rules{Classic: map[string]any{
			"required_status_checks": map[string]any{"strict": false, "contexts": []string{"meshnode check"}}}},
			setup.StatusOK, `main requires "meshnode check", so the gate binds`},
		{"the rule binds but the heartbeat does not set the status", fakegithub.Rules{Branch: map[string][]map[string]any{"main": recommendedRules}, ClassicStatus: http.StatusForbidden},
			setup.StatusFail, "commits without --check-status: GitHub refuses its pushes (GH006)"},
		{"a job's token: no ruleset, classic unreadable", fakegithub.Rules{ClassicStatus: http.StatusForbidden},
			setup.StatusWarn, `cannot tell whether the gate binds: no ruleset on main requires "meshnode check", and this token cannot read classic branch protection`},
		{"nothing readable (403)", fakegithub.Rules{RulesetsStatus: http.StatusForbidden, ClassicStatus: http.StatusForbidden},
			setup.StatusWarn, "cannot tell whether the gate binds or the heartbeat can push: this token can read neither"},
		{"nothing readable (404)", fakegithub.Rules{RulesetsStatus: http.StatusNotFound, ClassicStatus: http.StatusNotFound},
			setup.StatusWarn, "cannot tell whether the gate binds or the heartbeat can push: this token can read neither"},
		{"no protection at all", fakegithub.Rules{},
			setup.StatusWarn, "main is not protected: the gate does not bind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := fakegithub.New(t, nil)
			f.PlayRules(tt.rules)
			dir := t.TempDir()
			flags := "--push --check-status"
			if strings.Contains(tt.name, "does not set the status") { // heartbeat.yml commits without --check-status
				flags = "--push"
			}
			writeCheckNodeFile(t, dir, ".github/workflows/heartbeat.yml", "jobs:\n  heartbeat:\n    steps:\n      - run: meshnode commit "+flags+"\n")
			env := map[string]string{"GITHUB_TOKEN": "t0ken", "GITHUB_REPOSITORY": fakegithub.Owner + "/" + fakegithub.Repo, "GITHUB_API_URL": c.BaseURL.String()}
			got := checkProtection(context.Background(), dir, func(k string) string { return env[k] })
			if got.Status != tt.status || !strings.Contains(got.Message, tt.contains) {
				t.Errorf("finding %s: %s\nwant %s containing %q", got.Status, got.Message, tt.status, tt.contains)
			}
			if got.Status != setup.StatusOK && got.Fix == "" {
				t.Errorf("a %s finding without a fix: %s", got.Status, got.Message)
			}
		})
	}
}

func TestDoctorSaysItNeedsATokenToReadTheProtection(t *testing.T) {
	got := checkProtection(context.Background(), t.TempDir(), func(string) string { return "" })
	if got.Status != setup.StatusWarn || !strings.Contains(got.Message, "not checked") || !strings.Contains(got.Fix, "GITHUB_TOKEN") {
		t.Errorf("finding = %+v, want a warning that says to set GITHUB_TOKEN", got)
	}
}
