package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/publish"
)

func init() {
	register(&command{
		name:    "trace",
		summary: "start a new trace of your own (trace new \"Title\")",
		usage: `Usage: meshnode trace new "Title" [--type TYPE] [--category CATEGORY] [--dir DIR]

Creates traces/YYYY-MM-DD-<slug>.md in the node with YAML front matter
(title, type, category, date, tags, cites) and the v0.2 sections to fill
in: Work, Evidence, Connections, Builds On. It never overwrites a file: a
taken name gets -2, -3 and so on. It prints the new file's path on stdout,
and what to do next: on stdout too at a terminal, else on stderr, so that
$(meshnode trace new …) is the path alone. A type the mesh does not use
(see docs/protocol.md) is kept, with a warning naming the known ones.

The trace starts with "draft: true". The heartbeat does not publish a
draft: edit the trace, delete that line, and commit. The next heartbeat
gives it a seq and lists it in MANIFEST.md; from then on it can never
change (see docs/publishing.md).

Examples:
  meshnode trace new "Backoff that respects Retry-After"
  meshnode trace new "Gaps are never skipped" --type capability --category rock
  $EDITOR "$(meshnode trace new 'What 429s taught us')"

Flags:
`,
		run: runTrace,
	})
}

// traceOptions are the flags of `meshnode trace new`.
type traceOptions struct {
	nodeFlags
	typ, category string
}

func runTrace(ctx context.Context, e *env, args []string) error {
	var o traceOptions
	fs := newFlagSet("trace")
	o.add(fs)
	fs.StringVar(&o.typ, "type", publish.DefaultType, "the trace's type (knowledge, capability, signal, …)")
	fs.StringVar(&o.category, "category", publish.DefaultCategory, "the trace's category (rock, pebble, sand)")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 || rest[0] != "new" {
		return usagef(`run 'meshnode trace new "Title"'`, "trace: the only subcommand is new")
	}
	title := strings.Join(rest[1:], " ")
	if strings.TrimSpace(title) == "" {
		return usagef(`run 'meshnode trace new "Title"'`, "trace new: give the trace a title")
	}
	if err := o.existingDir("trace new"); err != nil {
		return err
	}
	return traceNew(e, o, title)
}

func traceNew(e *env, o traceOptions, title string) error {
	now, err := o.clock(e)
	if err != nil {
		return err
	}
	warnUnknownType(e.stderr, o.typ)
	p, err := publish.Scaffold(o.dir, title, o.typ, o.category, now())
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, filepath.Join(o.dir, filepath.FromSlash(p)))
	// The path alone is the result a script takes ($(meshnode trace new …));
	// a person at a terminal reads what to do next beside it.
	next := e.stderr
	if e.isTerminal {
		next = e.stdout
	}
	fmt.Fprintln(next, "next: edit it, delete the line \"draft: true\", and commit; the next heartbeat publishes it")
	return nil
}

// warnUnknownType warns about a type the mesh does not use, a likely typo,
// and names the known ones. The trace keeps the type as given: the
// protocol keeps unknown types (docs/protocol.md, Traces).
func warnUnknownType(w io.Writer, typ string) {
	if strings.TrimSpace(typ) == "" || publish.IsKnownType(typ) {
		return
	}
	fmt.Fprintf(w, "meshnode: trace new: warning: type %q is not one the mesh uses (%s); kept as given\n",
		strings.TrimSpace(typ), strings.Join(publish.KnownTypes, ", "))
}
