package setup

import "testing"

func TestPagesURLFromRepository(t *testing.T) {
	tests := []struct {
		name, repo, want string
	}{
		{"project site under the repository name", "Jolt37/mesh-node", "https://jolt37.github.io/mesh-node/"},
		{"owner lowercased, repository kept", "OctoCat/Traces", "https://octocat.github.io/Traces/"},
		{"user site at the root", "octocat/octocat.github.io", "https://octocat.github.io/"},
		{"user site matched without case", "OctoCat/OctoCat.GitHub.io", "https://octocat.github.io/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRepository(tt.repo)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := r.PagesURL(); got != tt.want || err != nil {
				t.Errorf("PagesURL() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseRepositoryRejectsWhatIsNotOwnerSlashRepo(t *testing.T) {
	for _, s := range []string{"", "owner", "/repo", "owner/", "a/b/c", "own er/repo"} {
		t.Run(s, func(t *testing.T) {
			if r, err := ParseRepository(s); err == nil {
				t.Errorf("ParseRepository(%q) = %+v, want an error", s, r)
			}
		})
	}
}

func TestParseRemote(t *testing.T) {
	tests := []struct {
		name, remote string
		want         Repo
		wantErr      bool
	}{
		{"https with .git", "https://github.com/jolt37/node.git", Repo{"jolt37", "node"}, false},
		{"https without .git", "https://github.com/jolt37/node", Repo{"jolt37", "node"}, false},
		{"https with a token", "https://x-access-token:abc@github.com/jolt37/node.git", Repo{"jolt37", "node"}, false},
		{"scp-like ssh", "git@github.com:jolt37/node.git", Repo{"jolt37", "node"}, false},
		{"ssh url", "ssh://git@github.com/jolt37/node.git", Repo{"jolt37", "node"}, false},
		{"trailing newline as git prints it", "git@github.com:jolt37/node.git\n", Repo{"jolt37", "node"}, false},
		{"another host", "https://gitlab.com/jolt37/node.git", Repo{}, true},
		{"a path, not a remote", "/srv/git/node.git", Repo{}, true},
		{"missing repository", "https://github.com/jolt37", Repo{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRemote(tt.remote)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseRemote(%q) = %+v, %v; want %+v, error %v", tt.remote, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestSuggestAgent(t *testing.T) {
	tests := []struct {
		name string
		repo Repo
		want string
	}{
		{"repository name", Repo{"Mark", "czero"}, "czero"},
		{"owner for a user site", Repo{"Jolt37", "jolt37.github.io"}, "jolt37"},
		{"owner for a fork still named meshnode", Repo{"Jolt37", "meshnode"}, "jolt37"},
		{"owner when the repository name is no agent name", Repo{"ada", ".hidden"}, "ada"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.repo.SuggestAgent(); got != tt.want {
				t.Errorf("SuggestAgent() = %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzParseRemote checks that whatever a remote parses to gives a Pages
// URL the node accepts as its own.
func FuzzParseRemote(f *testing.F) {
	for _, s := range []string{"https://github.com/jolt37/node.git", "git@github.com:a/a.github.io.git", "ssh://git@github.com/x/y", "https://github.com/%00/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, remote string) {
		r, err := ParseRemote(remote)
		if err != nil {
			return
		}
		if u, err := r.PagesURL(); err != nil {
			t.Errorf("ParseRemote(%q) = %+v, whose PagesURL %q is refused: %v", remote, r, u, err)
		}
	})
}
