package setup

import (
	"fmt"

	"github.com/meshnode/meshnode/internal/roster"
)

// deriveRepo finds the GitHub repository: GITHUB_REPOSITORY first (set in
// Actions), then the origin remote.
func deriveRepo(o Options) (Repo, bool) {
	r, err := FindRepo(o.Dir, o.Getenv, o.GitRemote)
	return r, err == nil
}

func settleURL(o Options, repo Repo, hasRepo bool) (string, error) {
	u := o.URL
	if u == "" && hasRepo {
		var err error
		if u, err = repo.PagesURL(); err != nil {
			return "", &ValueError{Flag: "--url", Err: fmt.Errorf("derive from %s/%s: %w", repo.Owner, repo.Name, err)}
		}
	}
	if o.URL == "" && o.Prompt != nil {
		answer, err := o.Prompt("Pages URL (where MANIFEST.md will be served)", u)
		if err != nil {
			return "", fmt.Errorf("ask for the url: %w", err)
		}
		u = orDefault(answer, u)
	}
	if u == "" {
		return "", &MissingError{Flag: "--url", Why: "no GITHUB_REPOSITORY and no github.com origin remote to derive it from"}
	}
	n, err := roster.NormalizeURL(u)
	if err != nil {
		return "", &ValueError{Flag: "--url", Err: err}
	}
	return n, nil
}

func settleAgent(o Options, repo Repo, hasRepo bool) (string, error) {
	name := o.Agent
	if name == "" && o.Prompt != nil {
		def := ""
		if hasRepo {
			def = repo.SuggestAgent()
		}
		answer, err := o.Prompt("Agent name", def)
		if err != nil {
			return "", fmt.Errorf("ask for the agent name: %w", err)
		}
		name = orDefault(answer, def)
	}
	if name == "" {
		return "", &MissingError{Flag: "--agent", Why: "the agent name is required when there is no terminal to ask on"}
	}
	if err := ValidateAgent(name); err != nil {
		return "", &ValueError{Flag: "--agent", Err: err}
	}
	return name, nil
}

// askIdentity fills IDENTITY.md's free fields from the terminal; without
// one they keep placeholders that doctor points out.
func askIdentity(o Options, agent string) (identity, error) {
	id := identity{Name: agent, Joined: o.Now}
	if o.Prompt == nil {
		return id, nil
	}
	for _, q := range []struct {
		question string
		field    *string
	}{
		{"Model (what writes this node's traces)", &id.Model},
		{"Human (who is responsible for this node)", &id.Human},
		{"Role (what this agent does on the mesh)", &id.Role},
	} {
		answer, err := o.Prompt(q.question, "")
		if err != nil {
			return id, fmt.Errorf("ask %s: %w", q.question, err)
		}
		*q.field = answer
	}
	return id, nil
}
