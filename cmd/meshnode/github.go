package main

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/meshnode/meshnode/internal/setup"
)

// apiTimeout bounds each GitHub API request.
const apiTimeout = 30 * time.Second

// githubClient builds the API client from the environment a workflow (or a
// person with a token) provides; the repository is found as init finds it.
// command (say "score --pr") opens every error, so it names what needs it.
func githubClient(command, dir string, getenv func(string) string, remote func(string) (string, error)) (*github.Client, string, string, error) {
	token := getenv("GITHUB_TOKEN")
	if token == "" {
		return nil, "", "", usagef("export GITHUB_TOKEN (in a workflow: ${{ github.token }}; locally: gh auth token)", "%s: GITHUB_TOKEN is not set", command)
	}
	r, err := setup.FindRepo(dir, getenv, remote)
	if err != nil {
		return nil, "", "", usagef("export GITHUB_REPOSITORY=OWNER/REPO, or run in a clone whose origin is on github.com", "%s: %v", command, err)
	}
	owner, repo := r.Owner, r.Name
	c := github.NewClient(&http.Client{Timeout: apiTimeout}).WithAuthToken(token)
	if api := getenv("GITHUB_API_URL"); api != "" {
		u, err := url.Parse(strings.TrimSuffix(api, "/") + "/")
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, "", "", usagef("use a URL like https://api.github.com", "%s: GITHUB_API_URL %q is not an http(s) URL", command, api)
		}
		c.BaseURL = u
	}
	return c, owner, repo, nil
}
