package config

import (
	"fmt"
	"strings"
)

// EnvRepository is the GitHub Actions variable (OWNER/REPO) the URL
// defaults from.
const EnvRepository = "GITHUB_REPOSITORY"

// finish applies defaults that depend on other keys or the environment and
// checks what must be present.
func (d *decoder) finish(c *Config, lookupEnv func(string) (string, bool)) {
	if c.URL == "" {
		if repo, ok := lookupEnv(EnvRepository); ok {
			u, err := PagesURL(repo)
			if err != nil {
				d.add(0, "url", fmt.Sprintf("missing, and %s: %v", EnvRepository, err))
				return
			}
			c.URL = u
		}
	}
	if c.Agent == "" {
		d.add(0, "agent", "missing: add a line like `agent: yourname` (the name peers know you by)")
	}
	if c.URL == "" {
		d.add(0, "url", "missing: add a line like `url: https://you.github.io/mesh/` (where your MANIFEST.md is served), or set "+EnvRepository+"=OWNER/REPO")
	}
	if c.Scorer == ScorerCommand && len(c.ScorerCommand) == 0 {
		d.add(0, "scorer_command", "missing: scorer is command, so give the command as a list, like [\"python3\", \"score.py\"]")
	}
}

// PagesURL returns the GitHub Pages URL of repository OWNER/REPO:
// https://owner.github.io/REPO/, or https://owner.github.io/ for the
// repository named OWNER.github.io.
func PagesURL(repo string) (string, error) {
	owner, name, ok := strings.Cut(strings.TrimSpace(repo), "/")
	if !ok || owner == "" || name == "" || strings.ContainsAny(owner+name, "/ ?#") {
		return "", fmt.Errorf("%q is not OWNER/REPO", repo)
	}
	owner = strings.ToLower(owner)
	if strings.EqualFold(name, owner+".github.io") {
		return "https://" + owner + ".github.io/", nil
	}
	return normalizeURL("https://" + owner + ".github.io/" + name + "/")
}
