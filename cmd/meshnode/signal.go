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
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/signal"
)

func init() {
	register(&command{
		name:    "signal",
		summary: "compute SIGNAL, tiers and trace statuses from the files seen",
		usage: `Usage: meshnode signal [--dir DIR] [--now T] [--json]

Computes every known agent's SIGNAL and tier, and the status of every trace
(pending, validated, failed, contested), from public files only: the peers'
traces and validations recorded in mesh-state/ledger/, and this node's
own MANIFEST.md, traces/ and validations/, and the founders FOUNDERS.md
names. Only the validations of agents with standing count: founders have
it, others reach it at SIGNAL 50. Anyone holding the same files gets the
same numbers, whatever their mesh.yaml says; the rules are in
docs/scoring.md and docs/decisions.md (Standing).

Prints a table per agent (SIGNAL, tier, standing, how it was earned), per trace
(passing / seen validators, status), and the trust graph: who validated whom,
from validation files and verdicts in traces, counted or not. --json prints the same as one object;
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
	Founders   manifest.Hash        `json:"founders,omitempty"` // sha256 of FOUNDERS.md
	Rules      string               `json:"rules"`              // the rule set computed with
	Rounds     int                  `json:"rounds"`
	Agents     []signal.Agent       `json:"agents"`
	Traces     []signal.TraceResult `json:"traces"`
	Trust      []signal.Edge        `json:"trust"`
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
	rep, cfg, decl, err := computeSignal(o.dir)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	out := signalJSON{Agent: cfg.Agent, ComputedAt: clock().UTC().Format(time.RFC3339), Founders: decl.Hash, Rules: rep.Rules, Rounds: rep.Rounds,
		Agents: nonNil(rep.Agents), Traces: nonNil(rep.Traces), Trust: nonNil(rep.Trust)}
	if o.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return printSignal(e.stdout, out)
}

// computeSignal loads the node's config and files and computes the report.
func computeSignal(dir string) (signal.Report, *config.Config, signal.Declaration, error) {
	cfg, err := config.Load(dir)
	var ce *config.Error
	if errors.As(err, &ce) {
		return signal.Report{}, nil, signal.Declaration{}, usagef(ce.Hint, "%v", ce)
	}
	if err != nil {
		return signal.Report{}, nil, signal.Declaration{}, err
	}
	decl, err := signal.ReadFounders(dir)
	var fe *signal.FoundersError
	if errors.As(err, &fe) {
		return signal.Report{}, nil, decl, usagef("fix the line: one `name | trace_url` per founder (docs/decisions.md, Standing)", "%v", fe)
	}
	in, err := signal.Load(dir, cfg.Agent, cfg.URL)
	var ue *signal.UnknownRulesError
	if errors.As(err, &ue) {
		return signal.Report{}, nil, decl, usagef("a mesh's rule set is named by the rules line of its FOUNDERS.md (docs/decisions.md, Rule sets)", "%v", ue)
	}
	if err != nil {
		return signal.Report{}, nil, decl, fmt.Errorf("signal: %w", err)
	}
	// The pools the heartbeat keeps, read only: a file that does not
	// read costs only the time of computing them, and the next heartbeat
	// says so and rewrites it.
	pools, _ := signal.LoadPools(dir)
	return pools.Compute(in), cfg, decl, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func printSignal(w io.Writer, r signalJSON) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "SIGNAL as computed by %s at %s under rule set %s\n\n", r.Agent, r.ComputedAt, r.Rules)
	fmt.Fprintln(tw, "AGENT\tSIGNAL\tTIER\tSTANDING\tVALIDATED\tVALIDATIONS\tEARNED")
	for _, a := range r.Agents {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", a.Agent, formatPoints(a.Signal), a.Tier, standingWord(a), a.TracesValidated,
			validationsCell(a), breakdown(a.Breakdown))
	}
	fmt.Fprintln(tw, "\nTRACE\tSEQ\tPASSING/SEEN\tSTATUS\tURL")
	for _, t := range r.Traces {
		fmt.Fprintf(tw, "%s\t%d\t%d/%d\t%s\t%s\n", t.Agent, t.Seq, t.Passing, t.Seen, t.Status, traceRef(t))
	}
	if len(r.Trust) > 0 {
		fmt.Fprintln(tw, "\nVALIDATOR\tAGENT\tPASS\tFAIL\tCOUNTED\tFROM VERDICTS")
		for _, e := range r.Trust {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\n", e.Validator, e.Agent, e.Pass, e.Fail, e.Counted, e.Verdicts)
		}
	}
	return tw.Flush()
}

// standingWord says how an agent has standing: founder, earned, lost
// (to disputed hash mismatches, mesh-2026-3), or no.
func standingWord(a signal.Agent) string {
	switch {
	case a.StandingLost:
		return "lost"
	case a.Founder:
		return "founder"
	case a.Standing:
		return "earned"
	}
	return "no"
}

// validationsCell is the validations that counted, and those that did not:
// without standing, or outside the agent's assignment (mesh-2026-4, mesh-2026-5).
func validationsCell(a signal.Agent) string {
	var extra []string
	if a.ValidationsUncounted > 0 {
		extra = append(extra, fmt.Sprintf("+%d uncounted", a.ValidationsUncounted))
	}
	if a.ValidationsUnassigned > 0 {
		extra = append(extra, fmt.Sprintf("+%d unassigned", a.ValidationsUnassigned))
	}
	if len(extra) == 0 {
		return fmt.Sprint(a.ValidationsAuthored)
	}
	return fmt.Sprintf("%d (%s)", a.ValidationsAuthored, strings.Join(extra, ", "))
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

// traceRef names a trace by its URL, or by its hash when SIGNAL knows no URL.
func traceRef(t signal.TraceResult) string {
	if t.URL != "" {
		return t.URL
	}
	return string(t.Hash)
}
