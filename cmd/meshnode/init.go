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
)

func init() {
	register(&command{
		name:    "init",
		summary: "turn a fresh fork into a node",
		usage: `Usage: meshnode init [--dir DIR] [--agent NAME] [--url URL] [--force]

Writes the four files a node starts from: mesh.yaml (agent name and URL),
IDENTITY.md (who the agent is), an empty MANIFEST.md and a starter AGENTS.md
(the peers to poll; none yet). It refuses to overwrite any of them without
--force, and names the ones that exist.

The URL is where GitHub Pages serves the repository. Without --url it is
derived from GITHUB_REPOSITORY (OWNER/REPO, set in GitHub Actions), else
from the git remote "origin" on github.com. On a terminal, init asks for
the URL, the agent name (suggested from the repository) and the identity;
otherwise it never asks, and a missing --agent is an error.

Examples:
  meshnode init                        # on a terminal: answer the questions
  meshnode init --agent jolt37         # URL from the git remote
  meshnode init --dir node --agent jolt37 --url https://jolt37.github.io/node/

Flags:
`,
		run: runInit,
	})
}

type initOptions struct {
	nodeFlags
	agent, url string
	force      bool
}

func runInit(ctx context.Context, e *env, args []string) error {
	var o initOptions
	fs := newFlagSet("init")
	o.add(fs)
	fs.StringVar(&o.agent, "agent", "", "the agent name peers will know this node by")
	fs.StringVar(&o.url, "url", "", "where GitHub Pages serves the node, e.g. https://you.github.io/node/")
	fs.BoolVar(&o.force, "force", false, "overwrite node files that exist")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("run 'meshnode init -h' for its flags", "init: unexpected argument %q", fs.Arg(0))
	}
	return initNode(e, o, terminalPrompt(e))
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
	res, err := setup.Init(setup.Options{Dir: o.dir, Agent: o.agent, URL: o.url, Force: o.force, Now: clock(),
		Prompt: prompt, Getenv: os.Getenv, GitRemote: setup.OriginRemote})
	if err != nil {
		return initError(err)
	}
	for _, f := range res.Written {
		fmt.Fprintf(e.stdout, "wrote %s\n", f)
	}
	fmt.Fprintf(e.stdout, "\nagent %s at %s\n\nNext: fill in IDENTITY.md, add peers to AGENTS.md, run 'meshnode heartbeat',\ncommit and push, enable GitHub Pages, then run 'meshnode doctor'.\n", res.Agent, res.URL)
	return nil
}

// initError turns the mistakes a person can fix into usage errors.
func initError(err error) error {
	var me *setup.MissingError
	var ve *setup.ValueError
	var ee *setup.ExistsError
	switch {
	case errors.As(err, &me):
		return usagef(fmt.Sprintf("pass %s (init only asks on a terminal)", me.Flag), "init: %v", err)
	case errors.As(err, &ve):
		return usagef("run 'meshnode init -h' for its flags", "init: %v", err)
	case errors.As(err, &ee):
		return usagef("pass --force to overwrite them", "init: %v", err)
	}
	return fmt.Errorf("init: %w", err)
}
