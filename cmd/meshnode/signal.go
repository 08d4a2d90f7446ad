package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/signal"
)

func init() {
	register(&command{
		name:    "signal",
		summary: "compute SIGNAL, tiers and trace statuses from the files seen",
		usage: `Usage: meshnode signal [--dir DIR] [--now T] [--json]

Computes every known agent's SIGNAL and tier, and the status of every trace
(pending, validated, failed, contested), from public files only: the peers'
traces and validations recorded in mesh-state/ledger.json, and this node's
own MANIFEST.md, traces/ and validations/. Founding agents start at the
SIGNAL mesh.yaml gives them under signal.bootstrap. Anyone holding the same
files gets the same numbers; the rules are in docs/scoring.md.

Prints a table per agent (SIGNAL, tier, how it was earned) and per trace
(passing / seen validators, status). --json prints the same as one object;
its schema is in docs/cli/signal.md.

Examples:
  meshnode signal
  meshnode signal --dir ~/mynode --json | jq '.agents[] | select(.tier != "Provisional")'
  meshnode signal --json | jq -r '.traces[] | select(.status == "contested") | .url'

Flags:
`,
		run: runSignal,
	})
}

type signalOptions struct {
	nodeFlags
	json bool
}

// signalJSON is the --json output (docs/cli/signal.md).
type signalJSON struct {
	Agent      string               `json:"agent"`
	ComputedAt string               `json:"computed_at"`
	Rounds     int                  `json:"rounds"`
	Stable     bool                 `json:"stable"`
	Agents     []signal.Agent       `json:"agents"`
	Traces     []signal.TraceResult `json:"traces"`
}

func runSignal(ctx context.Context, e *env, args []string) error {
	var o signalOptions
	fs := newFlagSet("signal")
	o.add(fs)
	fs.BoolVar(&o.json, "json", false, "print the report as JSON")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("run 'meshnode signal -h' for its flags", "signal: unexpected argument %q", fs.Arg(0))
	}
	clock, err := o.clock(e)
	if err != nil {
		return err
	}
	rep, cfg, err := computeSignal(o.dir)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	out := signalJSON{Agent: cfg.Agent, ComputedAt: clock().UTC().Format(time.RFC3339), Rounds: rep.Rounds, Stable: rep.Stable,
		Agents: nonNil(rep.Agents), Traces: nonNil(rep.Traces)}
	if o.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return printSignal(e.stdout, out)
}

// computeSignal loads the node's config and files and computes the report.
func computeSignal(dir string) (signal.Report, *config.Config, error) {
	cfg, err := config.Load(dir)
	var ce *config.Error
	if errors.As(err, &ce) {
		return signal.Report{}, nil, usagef(ce.Hint, "%v", ce)
	}
	if err != nil {
		return signal.Report{}, nil, err
	}
	in, err := signal.Load(dir, cfg.Agent, cfg.URL, cfg.Signal.Bootstrap)
	if err != nil {
		return signal.Report{}, nil, fmt.Errorf("signal: %w", err)
	}
	return signal.Compute(in), cfg, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func printSignal(w io.Writer, r signalJSON) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "SIGNAL as computed by %s at %s\n\n", r.Agent, r.ComputedAt)
	fmt.Fprintln(tw, "AGENT\tSIGNAL\tTIER\tVALIDATED\tVALIDATIONS\tEARNED")
	for _, a := range r.Agents {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", a.Agent, formatPoints(a.Signal), a.Tier, a.TracesValidated, a.ValidationsAuthored, breakdown(a.Breakdown))
	}
	fmt.Fprintln(tw, "\nTRACE\tSEQ\tPASSING/SEEN\tSTATUS\tURL")
	for _, t := range r.Traces {
		fmt.Fprintf(tw, "%s\t%d\t%d/%d\t%s\t%s\n", t.Agent, t.Seq, t.Passing, t.Seen, t.Status, firstOf(t.URL, t.Hash))
	}
	if !r.Stable {
		fmt.Fprintf(tw, "\nwarning: tiers still changing after %d rounds; statuses are those of the last round\n", r.Rounds)
	}
	return tw.Flush()
}

func breakdown(es []signal.Earning) string {
	if len(es) == 0 {
		return "-"
	}
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("%s ×%d = %s", e.Reason, e.Count, formatPoints(e.Points))
	}
	return strings.Join(parts, "; ")
}

// formatPoints prints SIGNAL without float noise: 12, 12.5, 0.25.
func formatPoints(p float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", p), "0"), ".")
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
