package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/pflag"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/node"
)

func init() {
	register(&command{
		name:    "heartbeat",
		summary: "poll the known agents once, validate, publish",
		usage: `Usage: meshnode heartbeat [--dir DIR] [--now RFC3339] [--summary FILE] [--log-format text|json] [--log-key FILE]

Runs one heartbeat (docs/protocol.md §6): polls every agent in AGENTS.md and
those learned by gossip, fetches only what is new since each cursor, verifies
every sha256, queues and scores others' pending traces, publishes validations
and disputes, and regenerates MANIFEST.md and the signed log beside it
(log/, signed with the key --log-key, MESHNODE_LOG_KEY_FILE, the key
itself in MESHNODE_LOG_KEY or the file init wrote beside the node gives;
without one, no signed log, and the summary says how to set it; meshnode
sign then signs it apart).

It exits 0 when it ran, whatever the peers did; 2 for a mistake to fix (a
mesh.yaml that does not load, a stray argument), 1 for other local failures
(corrupt state, unwritable files). Ctrl-C or SIGTERM stops it early with what
it did saved, an "interrupted:" line in the summary, and exit 130 or 143.

On a terminal stderr shows a progress line, and of the logs only warnings;
--log-format gives the full log there too (one line per peer poll).

Examples:
  meshnode heartbeat
  meshnode heartbeat --dir ~/node --summary /tmp/heartbeat.json
  meshnode heartbeat --log-format json 2>poll.log
  meshnode heartbeat --log-key ~/keys/mynode.log-key

Flags:
`,
		run: runHeartbeatCmd,
	})
}

func runHeartbeatCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("heartbeat")
	var nf nodeFlags
	nf.add(fs)
	summaryFile := fs.String("summary", "", "also write the summary as JSON to this file")
	logFormat := fs.String("log-format", "text", "log format on stderr: text or json (one line per peer poll)")
	keyFlag := addLogKeyFlag(fs)
	if err := parseFlagsNoArgs(e, fs, args); err != nil {
		return err
	}
	logKey, err := loadLogKey(*keyFlag, nf.dir)
	if err != nil {
		return err
	}
	now, err := nf.clock(e)
	if err != nil {
		return err
	}
	// On a terminal the progress line says how polling goes; the per-peer
	// lines are for logs, so they come only when --log-format asks.
	quiet := e.errTerminal && !fs.Changed("log-format")
	logger, err := newLogger(e.stderr, *logFormat, quiet)
	if err != nil {
		return err
	}
	cfg, err := config.Load(nf.dir)
	if err != nil {
		return err // a *config.Error carries its own hint
	}
	opts := heartbeat.Options{Dir: nf.dir, Config: cfg, Now: now, Logger: logger, Version: userAgentVersion(), LogKey: logKey,
		Waiting: func(holder string, upTo time.Duration) { sayWaiting(e.stderr, holder, upTo) }}
	if e.errTerminal {
		opts.Progress = func(done, total int, peer string) {
			fmt.Fprintf(e.stderr, "\rpolled %d/%d peers (%s)\033[K", done, total, peer)
			if done == total {
				fmt.Fprint(e.stderr, "\r\033[K")
			}
		}
	}
	sum, err := heartbeat.Run(ctx, opts)
	if err != nil {
		return err
	}
	sum.WriteText(e.stdout)
	if *summaryFile != "" {
		data, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(*summaryFile, append(data, '\n'), 0o644); err != nil {
			return fmt.Errorf("write summary: %w", err)
		}
	}
	return nil
}

// sayWaiting tells a person why the heartbeat has not started: another
// holds the node's lock, for whom, and how long this one waits for it.
func sayWaiting(w io.Writer, holder string, upTo time.Duration) {
	if holder == "" {
		holder = "its holder did not say who it is"
	}
	fmt.Fprintf(w, "meshnode: another heartbeat is running on this node (%s; %s): waiting up to %s for it to finish\n",
		holder, node.LockFile, upTo)
}

// parseFlagsNoArgs parses args as parseFlags does, and refuses a stray
// argument as every command that takes none does: a mistake, exit 2.
func parseFlagsNoArgs(e *env, fs *pflag.FlagSet, args []string) error {
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef(fmt.Sprintf("run 'meshnode %s -h' for its flags", fs.Name()), "%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// newLogger makes the slog logger --log-format asks for; quiet keeps only
// warnings and errors.
func newLogger(w io.Writer, format string, quiet bool) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{}
	if quiet {
		opts.Level = slog.LevelWarn
	}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usagef("use --log-format text or --log-format json", "unknown log format %q", format)
}

// userAgentVersion is the version named in the User-Agent: the module
// version, or "dev" for a build from a checkout.
func userAgentVersion() string {
	if v := moduleVersion(); v != "(devel)" {
		return v
	}
	return "dev"
}
