package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/site"
)

func init() {
	register(&command{
		name:    "build",
		summary: "build the node's static site for GitHub Pages",
		usage: `Usage: meshnode build [--dir DIR] [--out DIR] [--now TIME]

Builds the node's static site into --out (default DIR/_site): MANIFEST.md,
IDENTITY.md, AGENTS.md, traces/, validations/ and disputes/ copied byte for
byte (peers verify their sha256), with HTML pages, charts, Atom feeds, a
sitemap and, for a site at a host's root, robots.txt beside them. Links are
relative, so the site works under https://OWNER.github.io/REPO/ and from a
local folder.

Reads local files only. An unchanged rebuild rewrites nothing (mtimes are
kept), and files of an earlier build that no longer belong are deleted, so
--out must be empty, absent or a site meshnode built.

Examples:
  meshnode build
  meshnode build --dir mynode --out /tmp/site
  meshnode serve            # build and preview on http://127.0.0.1:8080/

Flags:
`,
		run: runBuildCommand,
	})
}

type buildOptions struct {
	nodeFlags
	out string
}

func runBuildCommand(ctx context.Context, e *env, args []string) error {
	var o buildOptions
	fs := newFlagSet("build")
	o.add(fs)
	fs.StringVar(&o.out, "out", "", "where to write the site (default DIR/_site)")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("run 'meshnode build -h' for its flags", "build: unexpected argument %q", fs.Arg(0))
	}
	if err := o.existingDir("build"); err != nil {
		return err
	}
	clock, err := o.clock(e)
	if err != nil {
		return err
	}
	return runBuild(ctx, e, site.Options{Dir: o.dir, Out: o.out, Now: clock()})
}

// runBuild builds the site and prints one line saying what changed.
func runBuild(ctx context.Context, e *env, so site.Options) error {
	if so.Out == "" {
		so.Out = filepath.Join(so.Dir, site.DefaultOut)
	}
	so.Logger = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	start := time.Now()
	st, err := site.Build(ctx, so)
	if err != nil {
		return siteError("build", err)
	}
	sayAgentsSkipped(e.stderr, st.AgentsSkipped)
	fmt.Fprintf(e.stdout, "built %s: %d files, %d written, %d unchanged, %d removed, %d trace pages in %s\n",
		so.Out, st.Files, st.Written, st.Unchanged, st.Removed, st.Traces, time.Since(start).Round(time.Millisecond))
	return nil
}

// siteError turns the site's mistakes a person fixes into usage errors.
func siteError(cmd string, err error) error {
	switch {
	case errors.Is(err, site.ErrTemplate):
		return usagef("run 'meshnode init' to make this repository a node", "%s: %v", cmd, err)
	case errors.Is(err, site.ErrNotSite):
		return usagef("give --out a new or empty directory, or leave it out for DIR/_site", "%s: %v", cmd, err)
	case errors.Is(err, site.ErrOutUnusable):
		return usagef("give --out a directory you may create and write, such as /tmp/site, or leave it out for DIR/_site", "%s: --out %v", cmd, err)
	}
	return err
}
