package setup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/signal"
)

// Options configure Init.
type Options struct {
	Dir   string // the node's directory; created when missing
	Agent string // --agent; asked for, or an error, when empty
	URL   string // --url; derived, asked for, or an error, when empty
	Force bool   // overwrite files that exist
	// Founder founds a new mesh: Init also writes FOUNDERS.md naming this
	// node, so its validations count from the first heartbeat
	// (docs/decisions.md, Standing).
	Founder bool
	Now     time.Time
	// Prompt asks a question with a suggested answer and returns the
	// answer ("" keeps the suggestion). It is nil when there is no
	// terminal: then Init never asks.
	Prompt func(question, def string) (string, error)
	// Getenv reads GITHUB_REPOSITORY; nil reads nothing.
	Getenv func(string) string
	// GitRemote returns the URL of the "origin" remote of dir; nil skips it.
	GitRemote func(dir string) (string, error)
}

// Result says what Init did.
type Result struct {
	Agent, URL string
	Written    []string // file names relative to Dir, in writing order
	// IdentityBlank names the fields of IDENTITY.md left as placeholders
	// ("model", "human", "role"), for a person to fill in; nil when every
	// question was answered.
	IdentityBlank []string
	// Founders is the declaration the node now holds: the one Init wrote
	// with Founder, or one already there (copied from the mesh joined).
	Founders signal.Declaration
	// FoundersErr is why an existing FOUNDERS.md could not be read; the
	// node is set up all the same, and every command will say it too.
	FoundersErr error
}

// MissingError is a value Init needs and could neither derive nor ask for.
type MissingError struct {
	Flag string // "--agent" or "--url"
	Why  string
}

// Error names the flag and why it is needed.
func (e *MissingError) Error() string { return fmt.Sprintf("missing %s: %s", e.Flag, e.Why) }

// ValueError is a value given or answered for a flag that cannot be used.
type ValueError struct {
	Flag string
	Err  error
}

// Error names the flag, then what is wrong with the value.
func (e *ValueError) Error() string { return e.Flag + ": " + e.Err.Error() }

// Unwrap returns what is wrong with the value.
func (e *ValueError) Unwrap() error { return e.Err }

// ExistsError lists the node files that exist and would be overwritten.
type ExistsError struct {
	Dir   string
	Files []string
}

// Error names the files and the flag that would overwrite them.
func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already holds %s; not overwriting without --force", e.Dir, strings.Join(e.Files, ", "))
}

// initFiles are the files Init writes, in order.
var initFiles = []string{ConfigFile, IdentityFile, ManifestFile, AgentsFile}

// Init turns o.Dir into a node: it refuses to overwrite unless o.Force,
// settles the agent name and the URL (flag, then derivation, then a
// question), and writes mesh.yaml, IDENTITY.md, an empty MANIFEST.md and a
// starter AGENTS.md, each atomically.
func Init(o Options) (*Result, error) {
	if o.Dir == "" {
		o.Dir = "."
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	// Refuse before asking anything: a person who answered every
	// question should not learn only then that nothing will be written.
	if err := refuseOverwrite(o); err != nil {
		return nil, err
	}
	repo, hasRepo := deriveRepo(o)
	agent, err := settleAgent(o, repo, hasRepo)
	if err != nil {
		return nil, err
	}
	nodeURL, err := settleURL(o, repo, hasRepo)
	if err != nil {
		return nil, err
	}
	id, err := askIdentity(o, agent)
	if err != nil {
		return nil, err
	}
	res, err := writeNode(o.Dir, agent, nodeURL, id, o.Now)
	if err != nil {
		return res, err
	}
	res.IdentityBlank = id.blank()
	return res, settleFounders(o, res)
}

// settleFounders writes FOUNDERS.md naming the node when it founds a
// mesh; otherwise it reads the declaration already there, so that a bad
// copy is reported now (res.FoundersErr) rather than by the first
// heartbeat.
func settleFounders(o Options, res *Result) error {
	if o.Founder {
		data := signal.FormatFounders([]signal.Founder{{Name: res.Agent, URL: res.URL}})
		if err := atomicfile.WriteFile(filepath.Join(o.Dir, node.FoundersFile), data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", node.FoundersFile, err)
		}
		res.Written = append(res.Written, node.FoundersFile)
	}
	res.Founders, res.FoundersErr = signal.ReadFounders(o.Dir)
	return nil
}

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

func refuseOverwrite(o Options) error {
	if o.Force {
		return nil
	}
	var exist []string
	files := initFiles
	if o.Founder {
		files = append(files[:len(files):len(files)], node.FoundersFile)
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(o.Dir, f))
		switch {
		case err == nil && config.IsTemplate(data):
			// The template's placeholder: init is what replaces it.
		case err == nil:
			exist = append(exist, f)
		case !errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("check %s: %w", f, err)
		}
	}
	if len(exist) > 0 {
		return &ExistsError{Dir: o.Dir, Files: exist}
	}
	return nil
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

func writeNode(dir, agent, nodeURL string, id identity, now time.Time) (*Result, error) {
	contents := map[string][]byte{
		ConfigFile:   configYAML(agent, nodeURL),
		IdentityFile: identityMarkdown(id),
		ManifestFile: emptyManifest(agent, nodeURL, now),
		AgentsFile:   agentsMarkdown(),
	}
	res := &Result{Agent: agent, URL: nodeURL}
	for _, f := range initFiles {
		if err := atomicfile.WriteFile(filepath.Join(dir, f), contents[f], 0o644); err != nil {
			return res, fmt.Errorf("write %s: %w", f, err)
		}
		res.Written = append(res.Written, f)
	}
	return res, nil
}
