package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/meshnode/meshnode/internal/demo"
	"github.com/meshnode/meshnode/internal/site"
)

func init() {
	register(&command{
		name:    "demo",
		summary: "run the node on an embedded sample mesh (no setup, no network)",
		usage: `Usage: meshnode demo [--dir DIR] [--log-format text|json] [--verbose]

Starts sample peers in-process on 127.0.0.1 (their content is embedded in the
binary), creates a node in DIR (default: a new temporary directory, kept so
you can look at it), runs two heartbeats against them, builds the node's
static site, and shows what happened and where the files are.

Examples:
  meshnode demo
  meshnode demo --dir /tmp/my-demo-node --verbose

Flags:
`,
		run: runDemoCmd,
	})
}

func runDemoCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("demo")
	dir := fs.String("dir", "", "directory for the demo node (must be empty or absent)")
	logFormat := fs.String("log-format", "text", "log format on stderr with --verbose: text or json")
	verbose := fs.Bool("verbose", false, "log every peer poll to stderr")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "meshnode-demo-")
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		*dir = d
	}
	opts := demo.Options{Dir: *dir, Stdout: e.stdout, Build: buildSite}
	if *verbose {
		logger, err := newLogger(e.stderr, *logFormat, false)
		if err != nil {
			return err
		}
		opts.Logger = logger
	}
	_, err := demo.Run(ctx, opts)
	if errors.Is(err, demo.ErrDirNotEmpty) {
		return usagef("give --dir a new or empty directory, or leave it out for a temporary one", "demo: %v", err)
	}
	return err
}

// buildSite builds the demo node's static site.
func buildSite(ctx context.Context, dir, out string) error {
	_, err := site.Build(ctx, site.Options{Dir: dir, Out: out})
	return err
}
