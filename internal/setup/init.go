package setup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/node"
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
	// Rules is the rule set FOUNDERS.md names when Founder is set; ""
	// is signal.NewMeshRules. The caller checks it is one this node
	// implements.
	Rules string
	Now   time.Time
	// Prompt asks a question with a suggested answer and returns the
	// answer ("" keeps the suggestion). It is nil when there is no
	// terminal: then Init never asks.
	Prompt func(question, def string) (string, error)
	// Getenv reads GITHUB_REPOSITORY; nil reads nothing.
	Getenv func(string) string
	// GitRemote returns the URL of the "origin" remote of dir; nil skips it.
	GitRemote func(dir string) (string, error)
	// LogKeyFile is where the log's signing key is kept, outside Dir;
	// "" is signingkey.DefaultPath (beside Dir). A key already there for
	// this node's URL is kept; otherwise a new one is written there.
	LogKeyFile string
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
	// FoundedOnly: the node was set up already, and Init founded a mesh
	// on it, touching nothing but FOUNDERS.md.
	FoundedOnly bool
	// Unchanged names files that already held what Init would write.
	Unchanged []string
	// Kept lists the files --force replaced, each kept as a copy first.
	Kept []Kept
	// LogKeyFile is the signing key's file; LogKeyNew says Init made the
	// key now (else it kept the one there).
	LogKeyFile string
	LogKeyNew  bool
}

// Kept is a file Init replaced and the copy of it it kept.
type Kept struct {
	File string // "AGENTS.md"
	Copy string // "AGENTS.md.bak-1", beside it
}

// initFiles are the files Init writes, in order.
var initFiles = []string{ConfigFile, IdentityFile, ManifestFile, AgentsFile}

// Init turns o.Dir into a node: it refuses to overwrite unless o.Force,
// settles the agent name and the URL (flag, then derivation, then a
// question), and writes mesh.yaml, IDENTITY.md, an empty MANIFEST.md and a
// starter AGENTS.md, each atomically. With o.Force, each file it replaces
// that a person wrote is kept first as FILE.bak-N (docs/cli/init.md).
//
// With o.Founder on a node that is set up already, Init founds a mesh on
// it instead: it writes FOUNDERS.md and nothing else (foundMesh).
func Init(o Options) (*Result, error) {
	if o.Dir == "" {
		o.Dir = "."
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Founder {
		setUp, err := isSetUp(o.Dir)
		if err != nil {
			return nil, err
		}
		if setUp {
			return foundMesh(o)
		}
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
	res := &Result{Agent: agent, URL: nodeURL}
	if id.LogKey, err = settleLogKey(o, nodeURL, res); err != nil {
		return res, err
	}
	if err := writeNode(o.Dir, id, o.Now, res); err != nil {
		return res, err
	}
	res.IdentityBlank = id.blank()
	return res, settleFounders(o, res)
}

// rules is the rule set a mesh founded with o declares.
func (o Options) rules() string {
	if o.Rules == "" {
		return signal.NewMeshRules
	}
	return o.Rules
}

// settleFounders writes FOUNDERS.md naming the node when it founds a
// mesh; otherwise it reads the declaration already there, so that a bad
// copy is reported now (res.FoundersErr) rather than by the first
// heartbeat.
func settleFounders(o Options, res *Result) error {
	if o.Founder {
		data := signal.FormatFounders(o.rules(), []signal.Founder{{Name: res.Agent, URL: res.URL}})
		if err := keepCopy(o.Dir, node.FoundersFile, data, res); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(o.Dir, node.FoundersFile), data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", node.FoundersFile, err)
		}
		res.Written = append(res.Written, node.FoundersFile)
	}
	res.Founders, res.FoundersErr = signal.ReadFounders(o.Dir)
	return nil
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

func writeNode(dir string, id identity, now time.Time, res *Result) error {
	contents := map[string][]byte{
		ConfigFile:   configYAML(res.Agent, res.URL),
		IdentityFile: identityMarkdown(id),
		ManifestFile: emptyManifest(res.Agent, res.URL, now),
		AgentsFile:   agentsMarkdown(),
	}
	for _, f := range initFiles {
		if err := keepCopy(dir, f, contents[f], res); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, f), contents[f], 0o644); err != nil {
			return fmt.Errorf("write %s: %w", f, err)
		}
		res.Written = append(res.Written, f)
	}
	return nil
}
