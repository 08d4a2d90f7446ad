package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/setup"
)

func init() {
	register(&command{
		name:    "doctor",
		summary: "check a node and say what to fix",
		usage: `Usage: meshnode doctor [--dir DIR] [--pages-url URL] [--json]

Checks the node and prints one line per check, with the fix for each that
is not ok: mesh.yaml is valid, its url spelled as peers compare URLs;
IDENTITY.md is filled in; MANIFEST.md parses; the Pages URL serves the
same MANIFEST.md byte for byte, and the files it
lists with the hashes it lists; the peers in AGENTS.md answer; the workflows
.github/workflows/heartbeat.yml (scheduled) and check.yml are valid; the
state files in mesh-state/ read; the last commit is recent enough that
GitHub has not disabled the scheduled heartbeat (60 days without activity
in a public repository; doctor warns after 45); no git attribute
(.gitattributes, in any directory) rewrites the node's files on checkout,
which would change their hashes in a fresh clone; and, with GITHUB_TOKEN,
whether main's protection (its rulesets; its classic protection where the
token may read it, which a workflow's token never may) makes the gate bind
pull requests and still lets the heartbeat push, or that it cannot tell.

Exits 3 when a check fails; warnings alone exit 0.

Examples:
  meshnode doctor
  meshnode doctor --json | jq '.findings[] | select(.status != "ok")'
  meshnode doctor --pages-url http://127.0.0.1:8080/   # check a local preview

Flags:
`,
		run: runDoctor,
	})
}

type doctorOptions struct {
	nodeFlags
	pagesURL string
	json     bool
}

func runDoctor(ctx context.Context, e *env, args []string) error {
	var o doctorOptions
	fs := newFlagSet("doctor")
	o.add(fs)
	fs.StringVar(&o.pagesURL, "pages-url", "", "check the served files here instead of at mesh.yaml's url")
	fs.BoolVar(&o.json, "json", false, "print the findings as JSON")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("run 'meshnode doctor -h' for its flags", "doctor: unexpected argument %q", fs.Arg(0))
	}
	clock, err := o.clock(e)
	if err != nil {
		return err
	}
	if o.pagesURL != "" {
		if o.pagesURL, err = roster.NormalizeURL(o.pagesURL); err != nil {
			return usagef("give the URL the site is served at, like http://127.0.0.1:8080/", "doctor: --pages-url: %v", err)
		}
	}
	findings := setup.Doctor(ctx, setup.DoctorOptions{Dir: o.dir, Now: clock(), PagesURL: o.pagesURL})
	findings = append(findings, setup.CheckAttributes(ctx, o.dir), checkProtection(ctx, o.dir, os.Getenv))
	if err := ctx.Err(); err != nil {
		return err
	}
	if o.json {
		err = printFindingsJSON(e.stdout, findings)
	} else {
		printFindings(e.stdout, findings, e.isTerminal)
	}
	if err != nil {
		return err
	}
	if n := setup.Failures(findings); n > 0 {
		return &problemsFound{n: n}
	}
	return nil
}

// statusMarks are the marks of each status on a terminal and in plain text.
var statusMarks = map[setup.Status][2]string{
	setup.StatusOK:   {"✓", "ok  "},
	setup.StatusWarn: {"!", "warn"},
	setup.StatusFail: {"✗", "FAIL"},
}

func printFindings(w io.Writer, findings []setup.Finding, terminal bool) {
	for _, f := range findings {
		mark := statusMarks[f.Status][1]
		if terminal {
			mark = statusMarks[f.Status][0]
		}
		fmt.Fprintf(w, "%s %s: %s\n", mark, f.Check, f.Message)
		if f.Fix != "" {
			fmt.Fprintf(w, "     fix: %s\n", f.Fix)
		}
	}
}

// doctorReport is the --json output.
type doctorReport struct {
	OK       bool            `json:"ok"`
	Failures int             `json:"failures"`
	Findings []setup.Finding `json:"findings"`
}

func printFindingsJSON(w io.Writer, findings []setup.Finding) error {
	n := setup.Failures(findings)
	out, err := json.MarshalIndent(doctorReport{OK: n == 0, Failures: n, Findings: findings}, "", "  ")
	if err != nil {
		return fmt.Errorf("doctor: encode findings: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", out)
	return err
}
