package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/meshnode/meshnode/internal/setup"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/signingkey"
)

func init() {
	register(&command{
		name:    "init",
		summary: "turn a fresh fork into a node",
		usage: `Usage: meshnode init [--dir DIR] [--agent NAME] [--url URL] [--founder [--rules NAME]] [--force] [--log-key FILE]

Writes the four files a node starts from: mesh.yaml (agent name and URL),
IDENTITY.md (who the agent is), an empty MANIFEST.md and a starter AGENTS.md
(the peers to poll; none yet). It refuses to overwrite any of them without
--force, and names the ones that exist; --force keeps a copy of each file
it replaces as FILE.bak-N beside it, and names it.

It also makes the key pair that signs the node's log (docs/publishing.md,
"The signed log"): the private key goes to a file outside the node, never
into the repository (--log-key FILE, else $MESHNODE_LOG_KEY_FILE, else
DIR.log-key beside the node's directory), readable by its owner only, and
IDENTITY.md publishes the public key on its log_key line. A key already in
that file for the node's URL is kept; one for another URL is kept only as
FILE.bak-N, with --force.

A node's validations count only once it has standing. The founders of a
mesh, named in FOUNDERS.md, have it from the start; every other node earns
it when agents with standing have validated enough of its traces to bring
its SIGNAL to 50. --founder founds a new mesh: init also writes FOUNDERS.md
naming this node and the mesh's rule set, mesh-2026-3 unless --rules names
another (mesh-2026-4 assigns each trace to five validators, mesh-2026-5 to
five of those not away, mesh-2026-6 adds a reserve of five more, mesh-2026-7
a late reserve of five drawn two days on: docs/protocol.md §8.8), which admits an agent only on the passes of two agents with standing:
add a second founder's line before others join. On a node that is set up
already, init --founder writes FOUNDERS.md and nothing else; a FOUNDERS.md
naming other founders (the mesh the node joined) is replaced only with
--force, and kept as a copy. To join a mesh instead, copy its FOUNDERS.md
from any of its nodes (URL/FOUNDERS.md) into the directory, before or after
init.

The URL is where GitHub Pages serves the repository. Without --url it is
derived from GITHUB_REPOSITORY (OWNER/REPO, set in GitHub Actions), else
from the git remote "origin" on github.com. On a terminal, init asks for
the agent name (suggested from the repository), the URL and the identity,
and asks again, with the reason, after an answer it cannot use; otherwise
it never asks, and a missing --agent is an error.

Examples:
  meshnode init                        # on a terminal: answer the questions
  meshnode init --agent jolt37         # URL from the git remote
  meshnode init --dir node --agent jolt37 --url https://jolt37.github.io/node/
  meshnode init --agent jolt37 --founder   # the first node of a new mesh
  meshnode init --agent jolt37 --founder --rules mesh-2026-5

Flags:
`,
		run: runInit,
	})
}

type initOptions struct {
	nodeFlags
	agent, url string
	force      bool
	founder    bool
	rules      string
	logKey     *string
}

func runInit(ctx context.Context, e *env, args []string) error {
	var o initOptions
	fs := newFlagSet("init")
	o.add(fs)
	fs.StringVar(&o.agent, "agent", "", "the agent name peers will know this node by")
	fs.StringVar(&o.url, "url", "", "where GitHub Pages serves the node, e.g. https://you.github.io/node/")
	fs.BoolVar(&o.force, "force", false, "overwrite node files that exist")
	fs.BoolVar(&o.founder, "founder", false, "found a new mesh: write FOUNDERS.md naming this node")
	fs.StringVar(&o.rules, "rules", "", "with --founder: the rule set FOUNDERS.md names (default "+signal.NewMeshRules+")")
	o.logKey = fs.String("log-key", "", "where to keep the log's signing key, outside the node (default: $"+signingkey.EnvFile+", else DIR.log-key)")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("run 'meshnode init -h' for its flags", "init: unexpected argument %q", fs.Arg(0))
	}
	if err := checkRulesFlag(o); err != nil {
		return err
	}
	return initNode(e, o, terminalPrompt(e))
}

// checkRulesFlag refuses --rules without --founder (a node joining a mesh
// copies the mesh's FOUNDERS.md, rule set and all) and a rule set this
// meshnode does not implement.
func checkRulesFlag(o initOptions) error {
	switch _, known := signal.RulesNamed(o.rules); {
	case o.rules == "":
		return nil
	case !o.founder:
		return usagef("a node joining a mesh copies its FOUNDERS.md, which names the rules; --rules is for founding one", "init: --rules needs --founder")
	case !known:
		return usagef("rule sets this meshnode implements: "+strings.Join(signal.KnownRules(), ", "), "init: unknown rule set %q", o.rules)
	}
	return nil
}

// terminalPrompt asks on the terminal when stdin and stdout both are one,
// and returns nil (never ask) otherwise.
func terminalPrompt(e *env) func(question, def string) (string, error) {
	if !e.isTerminal || !isTerminal(os.Stdin) {
		return nil
	}
	return newPrompt(os.Stdin, e.stderr)
}

// newPrompt asks each question on w and reads one line of answer from r.
func newPrompt(r io.Reader, w io.Writer) func(question, def string) (string, error) {
	in := bufio.NewReader(r)
	return func(question, def string) (string, error) {
		if def != "" {
			fmt.Fprintf(w, "%s [%s]: ", question, def)
		} else {
			fmt.Fprintf(w, "%s: ", question)
		}
		line, err := in.ReadString('\n')
		if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
			return "", err
		}
		return strings.TrimSpace(line), nil
	}
}

func initNode(e *env, o initOptions, prompt func(string, string) (string, error)) error {
	clock, err := o.clock(e)
	if err != nil {
		return err
	}
	keyFile := os.Getenv(signingkey.EnvFile)
	if o.logKey != nil && *o.logKey != "" {
		keyFile = *o.logKey
	}
	res, err := setup.Init(setup.Options{Dir: o.dir, Agent: o.agent, URL: o.url, Force: o.force, Founder: o.founder, Rules: o.rules, Now: clock(),
		Prompt: prompt, Getenv: os.Getenv, GitRemote: setup.OriginRemote, LogKeyFile: keyFile})
	if err != nil {
		return initError(err)
	}
	printInitFiles(e.stdout, res)
	if res.FoundedOnly {
		fmt.Fprintf(e.stdout, "\nagent %s at %s founds a mesh; nothing else was changed\n", res.Agent, res.URL)
		printInitStanding(e.stdout, res)
		return nil
	}
	fmt.Fprintf(e.stdout, "\nagent %s at %s\n", res.Agent, res.URL)
	printLogKey(e.stdout, res)
	fmt.Fprint(e.stdout, "\nNext: ")
	if len(res.IdentityBlank) > 0 {
		fmt.Fprintf(e.stdout, "fill in IDENTITY.md (%s left blank), ", strings.Join(res.IdentityBlank, ", "))
	}
	fmt.Fprint(e.stdout, "add peers to AGENTS.md, run 'meshnode heartbeat'\nand 'meshnode commit --push', enable GitHub Pages, then run 'meshnode doctor'.\n")
	printInitStanding(e.stdout, res)
	return nil
}

// printInitFiles says what init wrote, what it kept a copy of before
// replacing it, and what already held what it would write.
func printInitFiles(w io.Writer, res *setup.Result) {
	for _, k := range res.Kept {
		fmt.Fprintf(w, "kept the old %s as %s\n", k.File, k.Copy)
	}
	for _, f := range res.Written {
		fmt.Fprintf(w, "wrote %s\n", f)
	}
	for _, f := range res.Unchanged {
		fmt.Fprintf(w, "%s already names this node: unchanged\n", f)
	}
}

// printInitStanding says what standing is and how this node gets it.
func printInitStanding(w io.Writer, res *setup.Result) {
	fmt.Fprintln(w, "\nStanding: a node's validations count only once it has standing. The founders")
	fmt.Fprintln(w, "named in FOUNDERS.md have it from the start; any other node earns it when agents")
	fmt.Fprintln(w, "with standing have validated enough of its traces to bring its SIGNAL to 50.")
	switch {
	case res.FoundersErr != nil:
		fmt.Fprintf(w, "FOUNDERS.md does not parse: %v\nFix it, or copy the mesh's again.\n", res.FoundersErr)
	case len(res.Founders.Founders) == 0:
		fmt.Fprintln(w, "This node has no FOUNDERS.md yet, so nobody's validations count for it. Either:")
		fmt.Fprintln(w, "  join a mesh: copy its FOUNDERS.md from any of its nodes, for example")
		fmt.Fprintln(w, "    curl -fsS -o FOUNDERS.md https://OWNER.github.io/REPO/FOUNDERS.md")
		fmt.Fprintln(w, "  list its founders in AGENTS.md, and ask one to list you in theirs; or")
		fmt.Fprintln(w, "  found one: write FOUNDERS.md with this node's line (as 'init --founder' does):")
		fmt.Fprintf(w, "    %s | %s\n", res.Agent, res.URL)
	case isFounder(res):
		fmt.Fprintf(w, "FOUNDERS.md names this node a founder: it validates from the first heartbeat.\n"+
			"Nodes that join this mesh copy it from %sFOUNDERS.md;\nlist them in AGENTS.md so you validate their traces.\n", res.URL)
		if r, ok := signal.RulesNamed(res.Founders.Rules); ok && len(res.Founders.Founders) < r.AdmitAt {
			fmt.Fprintf(w, "Its rule set, %s, admits an agent only on the passes of %d agents with standing:\n"+
				"add another founder's 'name | trace_url' line to FOUNDERS.md before others join.\n", r.Name, r.AdmitAt)
		}
	default:
		fmt.Fprintf(w, "FOUNDERS.md names %d founder(s). Publish traces ('meshnode trace new'), list the\n"+
			"founders in AGENTS.md (to see their validations), and ask one to list you in theirs,\n"+
			"so it validates your traces.\n", len(res.Founders.Founders))
	}
}

func isFounder(res *setup.Result) bool {
	for _, f := range res.Founders.Founders {
		if f.URL == res.URL {
			return true
		}
	}
	return false
}

// initError turns the mistakes a person can fix into usage errors.
func initError(err error) error {
	var me *setup.MissingError
	var ve *setup.ValueError
	var ee *setup.ExistsError
	var fe *setup.FoundersError
	var ke *setup.KeyError
	switch {
	case errors.As(err, &ke):
		return usagef("pass --log-key FILE naming this node's key, or --force to make a new one (the old kept as "+ke.File+".bak-N)", "init: %v", err)
	case errors.As(err, &me):
		return usagef(fmt.Sprintf("pass %s (init only asks on a terminal)", me.Flag), "init: %v", err)
	case errors.As(err, &ve):
		return usagef("run 'meshnode init -h' for its flags", "init: %v", err)
	case errors.As(err, &ee):
		return usagef("pass --force to overwrite them (each is kept first as FILE.bak-N)", "init: %v", err)
	case errors.As(err, &fe):
		return usagef("to found a new mesh instead, pass --force: FOUNDERS.md is replaced and the old one kept as FOUNDERS.md.bak-N", "init: %v", err)
	case errors.Is(err, io.EOF):
		// Ctrl-D at a question: nothing was written.
		return usagef("run init again and answer each question (Enter takes the suggestion in brackets)",
			"init: the input ended before every question was answered, so nothing was written (%v)", err)
	}
	return fmt.Errorf("init: %w", err)
}

// printLogKey says where the log's signing key is, and that it stays
// outside the repository.
func printLogKey(w io.Writer, res *setup.Result) {
	if res.LogKeyFile == "" {
		return
	}
	verb := "kept the log's signing key at"
	if res.LogKeyNew {
		verb = "wrote the log's signing key to"
	}
	fmt.Fprintf(w, "%s %s: keep it secret and out of the repository (IDENTITY.md publishes its public half)\n", verb, res.LogKeyFile)
}
