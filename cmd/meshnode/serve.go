package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/meshnode/meshnode/internal/site"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "build the site and preview it locally, rebuilding on changes",
		usage: `Usage: meshnode serve [--dir DIR] [--out DIR] [--addr HOST:PORT] [--now TIME]

Builds the node's site (as meshnode build does) and serves it for a local
preview. Every request first checks whether a source file changed and
rebuilds if so, so reloading the page shows your edit. Raw .md files are
served byte for byte as text/markdown; charset=utf-8, as peers fetch them.
Stops on Ctrl-C.

Examples:
  meshnode serve
  meshnode serve --addr 127.0.0.1:9000 --dir mynode

Flags:
`,
		run:          runServeCommand,
		untilStopped: true,
	})
}

type serveOptions struct {
	buildOptions
	addr string
}

func runServeCommand(ctx context.Context, e *env, args []string) error {
	var o serveOptions
	fs := newFlagSet("serve")
	o.add(fs)
	fs.StringVar(&o.out, "out", "", "where to write the site (default DIR/_site)")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("run 'meshnode serve -h' for its flags", "serve: unexpected argument %q", fs.Arg(0))
	}
	var now time.Time
	if o.now != "" {
		clock, err := o.clock(e)
		if err != nil {
			return err
		}
		now = clock()
	}
	so := site.Options{Dir: o.dir, Out: o.out, Now: now,
		Logger: slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	return site.Serve(ctx, so, o.addr, func(url string) {
		fmt.Fprintf(e.stdout, "serving %s on %s (Ctrl-C stops)\n", o.dir, url)
	})
}
