package setup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/meshnode/meshnode/internal/config"
)

// githubRemote matches the two forms of a GitHub remote git prints:
// https://github.com/OWNER/REPO(.git) and git@github.com:OWNER/REPO(.git).
var githubRemote = regexp.MustCompile(`^(?:https://(?:[^@/]+@)?github\.com/|ssh://git@github\.com/|git@github\.com:)([A-Za-z0-9-]+)/([A-Za-z0-9._-]+?)(?:\.git)?/?$`)

// GitHub's own limits on names: an owner holds letters, digits and
// hyphens; a repository also dots and underscores.
var (
	ownerName = regexp.MustCompile(`^[A-Za-z0-9-]+$`)
	repoName  = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
)

// Repo is a GitHub repository, OWNER/NAME.
type Repo struct {
	Owner, Name string
}

// ParseRepository reads GITHUB_REPOSITORY's form, OWNER/REPO.
func ParseRepository(s string) (Repo, error) {
	owner, name, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || !ownerName.MatchString(owner) || !repoName.MatchString(name) || isDots(name) {
		return Repo{}, fmt.Errorf("repository %q is not OWNER/REPO", s)
	}
	return Repo{Owner: owner, Name: name}, nil
}

// ParseRemote reads a GitHub remote URL as git prints it.
func ParseRemote(remote string) (Repo, error) {
	m := githubRemote.FindStringSubmatch(strings.TrimSpace(remote))
	if m == nil || isDots(m[2]) {
		return Repo{}, fmt.Errorf("remote %q is not a github.com repository", remote)
	}
	return Repo{Owner: m[1], Name: m[2]}, nil
}

// isDots reports the two names GitHub refuses for a repository.
func isDots(name string) bool { return name == "." || name == ".." }

// PagesURL is where GitHub Pages serves the repository (config.PagesURL:
// https://owner.github.io/REPO/, or the root for OWNER.github.io).
func (r Repo) PagesURL() (string, error) {
	return config.PagesURL(r.Owner + "/" + r.Name)
}

// SuggestAgent proposes an agent name from the repository: the repository
// name, unless it is a generic one (a Pages root site, or a name that only
// says "mesh node"), then the owner.
func (r Repo) SuggestAgent() string {
	name := strings.ToLower(r.Name)
	generic := strings.HasSuffix(name, ".github.io") || strings.Contains(name, "meshnode") ||
		name == "mesh" || name == "node"
	if generic || ValidateAgent(r.Name) != nil {
		return strings.ToLower(r.Owner)
	}
	return r.Name
}

// FindRepo finds the node's GitHub repository the way init does:
// GITHUB_REPOSITORY when set (in Actions), else the "origin" remote of dir.
// getenv and remote may be nil to skip a source.
func FindRepo(dir string, getenv func(string) string, remote func(dir string) (string, error)) (Repo, error) {
	if getenv != nil {
		if env := getenv("GITHUB_REPOSITORY"); env != "" {
			return ParseRepository(env)
		}
	}
	if remote == nil {
		return Repo{}, fmt.Errorf("no GITHUB_REPOSITORY")
	}
	url, err := remote(dir)
	if err != nil {
		return Repo{}, fmt.Errorf("no GITHUB_REPOSITORY, and no origin remote: %w", err)
	}
	r, err := ParseRemote(url)
	if err != nil {
		return Repo{}, fmt.Errorf("no GITHUB_REPOSITORY, and the %w", err)
	}
	return r, nil
}
