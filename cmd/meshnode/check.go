package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/meshnode/meshnode/internal/actions"
	"github.com/meshnode/meshnode/internal/check"
	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/pullrequest"
	"github.com/meshnode/meshnode/internal/setup"
)

func init() {
	register(&command{
		name:    "check",
		summary: "check a pull request's traces and validations",
		usage: `Usage: meshnode check [--dir DIR] [--base DIR] [--] [FILE...]

Checks the changed files of a pull request against the node (every file
of the node in DIR when no FILE is given). No problem means the change is
the node's data and every file of it passed:

  - a changed path that is not the node's data (code, .github/, go.mod,
    .gitattributes or .gitignore in any directory, docs, anything else)
    is never passed: a person must review it and merge it by hand
    (docs/github.md); it is reported once per kind of path;
  - every file of the node is a regular file, not executable, not a
    directory or a submodule;

  - a file the heartbeat writes (MANIFEST.md, mesh-state/, disputes/) is
    not a pull request's to change, and no published file (listed in
    MANIFEST.md) may be edited, deleted or made a symbolic link;
  - nothing the node publishes is a symbolic link, and a file in traces/
    or validations/ is directly there, has a publishable name (at most
    128 bytes of letters, digits, '.', '-', '_', ending in .md) and is at
    most 1 MiB (docs/publishing.md, "File names");
  - a trace parses and has a title;
  - a validation parses, every score is an integer 0-5, total_score is
    their sum and result agrees with the pass threshold (18 of 30);
  - the validator is this node, the file is val-<12 hex>.md, and no other
    validation scores the same trace;
  - the trace it scores was fetched and its hash verified by the heartbeat
    (mesh-state/ledger/), and is not this node's own trace;
  - this node has standing (FOUNDERS.md names it, or its SIGNAL reached 50),
    so its validations count;
  - FOUNDERS.md, AGENTS.md and mesh.yaml decide whom the node trusts and
    polls, and IDENTITY.md says who it is, which key signs its log and
    which mirrors serve it: a change to them (against a separate --base)
    is a problem for a person to review and merge by hand, never a green
    check; AGENTS.md is at most 256 KiB, what peers read;

Every problem of every file is reported, once.

DIR holds the files to check. --base names the node as it is (its
mesh.yaml, MANIFEST.md and ledger), default DIR: a pull request's own
copies of those are what it could forge, so the check workflow checks the
pull request's tree, checked out as data, against the base branch's.

FILE paths are relative to the current directory, as git prints them,
deleted files included. Every argument after the first FILE, or after --,
is a path, whatever it looks like. Each problem is printed to stdout as
FILE:LINE: message; when GITHUB_ACTIONS=true, also as an ::error
annotation on that line. The exit code is 3 when any problem is found.

With --status-sha SHA it also sets the commit status "meshnode check" on
SHA (success or failure), the check a repository makes required; it needs
GITHUB_TOKEN (statuses: write) and GITHUB_REPOSITORY, as the check
workflow provides.

Examples:
  meshnode check
  meshnode check validations/val-3f2a9c1b7d4e.md
  git diff -z --name-only --no-renames origin/main... | xargs -0 meshnode check --

Flags:
`,
		run: runCheck,
	})
}

func runCheck(ctx context.Context, e *env, args []string) error {
	var nf nodeFlags
	var base, statusSHA string
	fs := newFlagSet("check")
	nf.addDir(fs)
	fs.StringVar(&base, "base", "", "the node as it is, whose mesh.yaml, MANIFEST.md and ledger judge the files (default DIR)")
	fs.StringVar(&statusSHA, "status-sha", "", "also report the result as the commit status \""+pullrequest.CheckContext+"\" on this commit (needs GITHUB_TOKEN)")
	// A changed file named -h or --dir=x must be checked, never obeyed:
	// flags stop at the first FILE (and at --).
	fs.SetInterspersed(false)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if base == "" {
		base = nf.dir
	}
	cfg, err := loadCheckConfig(base)
	if err != nil {
		return err
	}
	files, err := checkFileArgs(nf.dir, fs.Args())
	if err != nil {
		return err
	}
	if len(fs.Args()) > 0 && len(files) == 0 {
		fmt.Fprintln(e.stderr, "meshnode: check: none of the files is inside the node")
		return nil
	}
	problems := check.Check(check.Options{
		Dir: nf.dir, Base: base, Files: files, Agent: cfg.Agent, URL: cfg.URL,
	})
	printCheckProblems(e, nf.dir, problems, os.Getenv("GITHUB_ACTIONS") == "true")
	if statusSHA != "" {
		if err := reportCheckStatus(ctx, base, statusSHA, len(problems), os.Getenv); err != nil {
			return err
		}
	}
	if len(problems) > 0 {
		return &problemsFound{n: len(problems)}
	}
	fmt.Fprintln(e.stderr, "meshnode: check: no problems found")
	return nil
}

// reportCheckStatus sets the gate's commit status on sha: the required
// check a repository makes of CheckContext, for a pull request of a
// stranger and the node's own scoring pull request alike.
func reportCheckStatus(ctx context.Context, dir, sha string, problems int, getenv func(string) string) error {
	client, owner, repo, err := githubClient("check --status-sha", dir, getenv, setup.OriginRemote)
	if err != nil {
		return err
	}
	if err := pullrequest.ReportStatus(ctx, client, owner, repo, sha, checkStatus(problems, owner, repo, getenv)); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	return nil
}

// checkStatus is the gate's commit status for a count of problems, linked
// to the workflow run when there is one: the one place it is worded, for
// a pull request's head and for the heartbeat's own commit alike.
func checkStatus(problems int, owner, repo string, getenv func(string) string) pullrequest.Status {
	st := pullrequest.Status{State: "success", Description: "no problems found"}
	if problems > 0 {
		st = pullrequest.Status{State: "failure", Description: fmt.Sprintf("%d problem(s) found: see the run's annotations", problems)}
	}
	if server, run := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_RUN_ID"); server != "" && run != "" {
		st.TargetURL = fmt.Sprintf("%s/%s/%s/actions/runs/%s", strings.TrimSuffix(server, "/"), owner, repo, run)
	}
	return st
}

// loadCheckConfig reads mesh.yaml; a mistake in it is the user's to fix.
func loadCheckConfig(dir string) (*config.Config, error) {
	cfg, err := config.Load(dir)
	var ce *config.Error
	if errors.As(err, &ce) {
		return nil, usagef(ce.Hint, "%v", err)
	}
	return cfg, err
}

// checkFileArgs turns FILE arguments (relative to the working directory)
// into slash paths relative to the node's directory. Files outside the
// node cannot be about it and are dropped.
func checkFileArgs(dir string, args []string) ([]string, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	var out []string
	for _, a := range args {
		abs, err := filepath.Abs(a)
		if err != nil {
			return nil, fmt.Errorf("check %s: %w", a, err)
		}
		rel, err := filepath.Rel(root, abs)
		if err == nil && filepath.IsLocal(rel) {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out, nil
}

// printCheckProblems writes each problem as FILE:LINE: message, FILE relative
// to the working directory, and as a GitHub Actions annotation when asked.
func printCheckProblems(e *env, dir string, problems []check.Problem, annotate bool) {
	for _, p := range problems {
		file := filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(p.File)))
		fmt.Fprintf(e.stdout, "%s:%d: %s\n", printable(file), p.Line, p.Message)
		if annotate {
			fmt.Fprintln(e.stdout, actions.Annotation{Level: actions.Error, File: file, Line: p.Line, Message: p.Message})
		}
	}
}

// printable quotes a file name that holds a control character or a
// non-ASCII byte, so that a name with a newline prints on one line and
// cannot pass for another problem.
func printable(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] >= 0x7f {
			return strconv.Quote(name)
		}
	}
	return name
}
