package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/spf13/pflag"

	"github.com/meshnode/meshnode/internal/config"
)

// Exit codes, documented in `meshnode help`.
const (
	exitOK      = 0
	exitFailure = 1 // an unexpected failure: the whole error chain is printed
	exitUsage   = 2 // a mistake the user can fix: one line and a hint
	exitProblem = 3 // the command ran and found problems (check, doctor)
)

// command is one subcommand. Each lives in a file of its own and registers
// itself with register from an init function.
type command struct {
	name    string
	summary string // one line for `meshnode help`
	usage   string // full text for `meshnode CMD -h`, examples included
	// run parses args with its own FlagSet and does the work.
	run func(ctx context.Context, env *env, args []string) error
}

// env is what every command gets from the doorway: where to write, and the
// clock (tests and --now replace it).
type env struct {
	stdout, stderr io.Writer
	now            func() time.Time
	isTerminal     bool // stdout is a terminal
	errTerminal    bool // stderr is a terminal: progress lines, no routine logs
	// untilStopped is set by a command that runs until a signal stops it
	// (serve, demo --serve): for it a signal is the normal end, exit 0. A
	// signal stops every other command early, exit 130 or 143.
	untilStopped bool
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("meshnode: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// usageError is a mistake the user can fix; it prints one line and a hint.
type usageError struct {
	msg  string
	hint string
}

func (e *usageError) Error() string { return e.msg }

func usagef(hint, format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), hint: hint}
}

// problemsFound reports that a command ran and found problems it already
// printed (check, doctor).
type problemsFound struct{ n int }

func (e *problemsFound) Error() string { return fmt.Sprintf("%d problem(s) found", e.n) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	e := &env{stdout: stdout, stderr: stderr, now: time.Now, isTerminal: isTerminal(stdout), errTerminal: isTerminal(stderr)}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				fmt.Fprint(stdout, c.usage)
				return nil
			}
			return usagef("run 'meshnode help' for the list of commands", "unknown command %q", args[1])
		}
		printHelp(stdout)
		return nil
	}
	c, ok := commands[args[0]]
	if !ok {
		return usagef("run 'meshnode help' for the list of commands", "unknown command %q", args[0])
	}
	err := c.run(ctx, e, args[1:])
	err = interruption(ctx, err)
	var ie *interruptedError
	if e.untilStopped && errors.As(err, &ie) && (ie.err == nil || errors.Is(ie.err, context.Canceled)) {
		return nil
	}
	return err
}

func printHelp(w io.Writer) {
	fmt.Fprint(w, `meshnode runs a node of the federated agent mesh.

Usage:
  meshnode COMMAND [flags]

Commands:
`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `
Every command that reads a node takes --dir DIR (default ".") and --now RFC3339
(to run as if at that time). Run 'meshnode COMMAND -h' for its flags and examples.

Exit codes: 0 ok, 1 unexpected failure, 2 a mistake you can fix (one line and
a hint), 3 the command ran and found problems (check, doctor), 130 and 143
stopped by SIGINT (Ctrl-C) and SIGTERM: state saved, the next run goes on.
`)
}

// configHint is the hint for a mistake in mesh.yaml that came with none.
const configHint = "see docs/config.md for every key, its default and its meaning"

// exitCode prints err the way its kind asks for and maps it to an exit code.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var ue *usageError
	var pf *problemsFound
	var ie *interruptedError
	var ce *config.Error
	switch {
	case errors.Is(err, pflag.ErrHelp):
		return exitOK
	case errors.As(err, &ie):
		fmt.Fprintf(stderr, "meshnode: %v\n", err)
		return ie.code()
	case errors.As(err, &pf):
		fmt.Fprintf(stderr, "meshnode: %v\n", err)
		return exitProblem
	case errors.As(err, &ce):
		// A mistake in mesh.yaml, wherever it was met, is the person's to
		// fix: the file, line and key are in the message.
		fmt.Fprintf(stderr, "meshnode: %v\n", err)
		fmt.Fprintf(stderr, "hint: %s\n", cmp.Or(ce.Hint, configHint))
		return exitUsage
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "meshnode: %s\n", ue.msg)
		if ue.hint != "" {
			fmt.Fprintf(stderr, "hint: %s\n", ue.hint)
		}
		return exitUsage
	default:
		fmt.Fprintf(stderr, "meshnode: %v\n", err)
		return exitFailure
	}
}
