package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"syscall"
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
		run: runServeCommand,
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
	if err := checkAddr(o.addr); err != nil {
		return err
	}
	if err := o.existingDir("serve"); err != nil {
		return err
	}
	e.untilStopped = true
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
	err := site.Serve(ctx, so, o.addr, func(url string) {
		fmt.Fprintf(e.stdout, "serving %s on %s (Ctrl-C stops)\n", o.dir, url)
	})
	return listenError(o.addr, siteError("serve", err))
}

// checkAddr refuses an --addr that is not HOST:PORT before anything is
// built.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err != nil {
		return usagef("use --addr HOST:PORT, like 127.0.0.1:8080", "serve: --addr %q is not HOST:PORT", addr)
	}
	return nil
}

// listenError turns a port that cannot be listened on into a usage error.
func listenError(addr string, err error) error {
	var oe *net.OpError
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return usagef("stop what listens there, or pick another port with --addr", "serve: %s is in use", addr)
	case errors.As(err, &oe) && oe.Op == "listen":
		return usagef("pick another --addr, like 127.0.0.1:8080", "serve: %v", err)
	}
	return err
}
