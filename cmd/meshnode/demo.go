package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"

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
static site, and shows what happened, where the files are, and commands to
look closer that work as printed. The sample peers stop with the demo; with
--serve the node's site is served on 127.0.0.1 until Ctrl-C.

Examples:
  meshnode demo
  meshnode demo --serve
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
	serve := fs.Bool("serve", false, "then serve the node's site on 127.0.0.1 until Ctrl-C")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("run 'meshnode demo -h' for its flags", "demo: unexpected argument %q", fs.Arg(0))
	}
	if err := refuseFileDir(*dir); err != nil {
		return err
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "meshnode-demo-")
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		*dir = d
	}
	opts := demo.Options{Dir: *dir, Stdout: e.stdout, Build: buildSite, Command: selfCommand(), Serving: *serve}
	if *verbose {
		logger, err := newLogger(e.stderr, *logFormat, false)
		if err != nil {
			return err
		}
		opts.Logger = logger
	}
	_, err := demo.Run(ctx, opts)
	if errors.Is(err, demo.ErrDirNotEmpty) {
		return usagef(demoDirHint, "demo: %v", err)
	}
	if err != nil || !*serve {
		return err
	}
	// The sample peers are gone; the node's site is static and stays
	// servable for as long as the person wants to look.
	e.untilStopped = true
	so := site.Options{Dir: *dir, Logger: slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	so.Out = filepath.Join(*dir, site.DefaultOut)
	return site.Serve(ctx, so, "127.0.0.1:0", func(url string) {
		fmt.Fprintf(e.stdout, "\nServing the demo node's site on %s (Ctrl-C stops)\n", url)
	})
}

const demoDirHint = "give --dir a new or empty directory, or leave it out for a temporary one"

// refuseFileDir refuses a --dir that is a file, or lies under one: the
// demo could only fail there, later, with a bare "not a directory".
func refuseFileDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return usagef(demoDirHint, "demo: --dir %s is a file, not a directory", dir)
	case errors.Is(err, syscall.ENOTDIR):
		return usagef(demoDirHint, "demo: --dir %s is under a file, not a directory", dir)
	}
	return nil
}

// buildSite builds the demo node's static site.
func buildSite(ctx context.Context, dir, out string) error {
	_, err := site.Build(ctx, site.Options{Dir: dir, Out: out})
	return err
}
