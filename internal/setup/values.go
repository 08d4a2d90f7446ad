package setup

import (
	"errors"
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
		return askUntilValid(o, "Pages URL (where MANIFEST.md will be served)", u, "--url", func(answer string) (string, error) {
			if answer == "" {
				return "", errors.New("a URL is needed: where GitHub Pages serves this repository, like https://you.github.io/node/")
			}
			return roster.NormalizeURL(answer)
		})
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
		return askUntilValid(o, "Agent name", def, "--agent", func(answer string) (string, error) {
			if answer == "" {
				return "", errors.New("a name is needed: the one peers will know this node by, like jolt37")
			}
			return answer, ValidateAgent(answer)
		})
	}
	if name == "" {
		return "", &MissingError{Flag: "--agent", Why: "the agent name is required when there is no terminal to ask on"}
	}
	if err := ValidateAgent(name); err != nil {
		return "", &ValueError{Flag: "--agent", Err: err}
	}
	return name, nil
}

// maxAsks bounds how often one question is asked again after an answer
// that cannot be used.
const maxAsks = 5

// askUntilValid asks question (suggesting def, which an empty answer
// takes) until check accepts the answer, and returns what check made of
// it. An answer check refuses is asked again with the reason, as a person
// at a terminal expects; after maxAsks refusals it is a *ValueError for
// flag, as the same value given as a flag would be.
func askUntilValid(o Options, question, def, flag string, check func(answer string) (string, error)) (string, error) {
	q := question
	for range maxAsks - 1 {
		v, err := askOnce(o, q, def, check)
		var ve *ValueError
		if !errors.As(err, &ve) {
			return v, err
		}
		q = fmt.Sprintf("%v: try again\n%s", ve.Err, question)
	}
	v, err := askOnce(o, q, def, check)
	var ve *ValueError
	if errors.As(err, &ve) {
		ve.Flag = flag
	}
	return v, err
}

// askOnce asks question once and checks the answer; a refused answer is
// a *ValueError.
func askOnce(o Options, question, def string, check func(string) (string, error)) (string, error) {
	answer, err := o.Prompt(question, def)
	if err != nil {
		return "", fmt.Errorf("ask %q: %w", question, err)
	}
	v, err := check(orDefault(answer, def))
	if err != nil {
		return "", &ValueError{Err: err}
	}
	return v, nil
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
