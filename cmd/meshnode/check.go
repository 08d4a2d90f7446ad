package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/check"
	"github.com/meshnode/meshnode/internal/config"
)

func init() {
	register(&command{
		name:    "check",
		summary: "check a pull request's traces and validations",
		usage: `Usage: meshnode check [--dir DIR] [FILE...]

Checks the changed files of a pull request against the node in DIR (all
traces and validations when no FILE is given):

  - a trace parses and has a title;
  - a validation parses, every score is an integer 0-5, total_score is
    their sum and result agrees with the pass threshold (18 of 30);
  - the validator is this node, the file is val-<12 hex>.md, and no other
    validation scores the same trace;
  - the trace it scores was fetched and its hash verified by the heartbeat
    (mesh-state/ledger.json), and is not this node's own trace;
  - this node has standing (FOUNDERS.md names it, or its SIGNAL reached 50),
    so its validations count;
  - no published file (listed in MANIFEST.md) was edited or deleted.

FILE paths are relative to the current directory, as git prints them.
Files outside traces/ and validations/ are ignored. Each problem is printed
to stdout as FILE:LINE: message; when GITHUB_ACTIONS=true, also as an
::error annotation on that line. The exit code is 3 when any problem is
found.

Examples:
  meshnode check
  meshnode check validations/val-3f2a9c1b7d4e.md
  git diff --name-only origin/main... | xargs meshnode check

Flags:
`,
		run: runCheck,
	})
}

func runCheck(ctx context.Context, e *env, args []string) error {
	var nf nodeFlags
	fs := newFlagSet("check")
	nf.add(fs)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	cfg, err := loadCheckConfig(nf.dir)
	if err != nil {
		return err
	}
	files, err := checkFileArgs(nf.dir, fs.Args())
	if err != nil {
		return err
	}
	problems := check.Check(check.Options{
		Dir: nf.dir, Files: files, Agent: cfg.Agent, URL: cfg.URL,
	})
	printCheckProblems(e, nf.dir, problems, os.Getenv("GITHUB_ACTIONS") == "true")
	if len(problems) > 0 {
		return &problemsFound{n: len(problems)}
	}
	fmt.Fprintln(e.stderr, "meshnode: check: no problems found")
	return nil
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
		fmt.Fprintf(e.stdout, "%s:%d: %s\n", file, p.Line, p.Message)
		if annotate {
			fmt.Fprintf(e.stdout, "::error file=%s,line=%d::%s\n", annotationProperty(file), p.Line, annotationData(p.Message))
		}
	}
}

// annotationData and annotationProperty follow GitHub's workflow command encoding,
// so a message with a newline or a file with a comma cannot end the
// annotation early or inject another command.
func annotationData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func annotationProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
