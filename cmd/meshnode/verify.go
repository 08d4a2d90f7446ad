package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/meshnode/meshnode/internal/audit"
	"github.com/meshnode/meshnode/internal/peertext"
)

func init() {
	register(&command{
		name:    "verify",
		summary: "recompute any node's statuses and SIGNAL from public files and list where it disagrees",
		usage: `Usage: meshnode verify [--now T] [--json] [--allow-private-addresses] NODE

Audits a node instead of trusting it. NODE is the node's URL (where its
MANIFEST.md is served) or a directory holding its public files. verify reads
its MANIFEST.md, the files it lists, AGENTS.md and FOUNDERS.md, then the
public files of every agent its AGENTS.md names, recomputes the status of
each of its traces and its SIGNAL as every node computes them, and lists
each trace whose published status the files do not give, and each value
its site's pages show (SIGNAL and tier on signal.html, a trace's status on
its page and in the list of traces) that the files do not give:

  lag        the published value is what the files give without the peers'
             files dated after the node's MANIFEST (it has not polled them
             yet); a later heartbeat of the node should catch up
  disagree   the files give another value, whatever the node has polled

and each listed file that is missing or does not match its hash. Under a
rule set that assigns traces (mesh-2026-4 and later) it also lists, as "outside", the
node's validations of traces whose jury (and, under mesh-2026-6, reserve;
under mesh-2026-7, late reserve with the validation dated from two days
after the trace's day on) does not name it: allowed, but they count for nothing (docs/protocol.md §8.8). Every read
has a timeout and a size limit; nothing is written but a scratch directory,
removed at the end. A node that serves no site (no signal.html) gets a
note, not a problem. The rule is in docs/decisions.md (Verify); --json prints
the report whose schema is in docs/cli/verify.md.

Exit codes: 0 the node agrees with its files (lag alone is not a
disagreement), 3 disagreements or bad files found, 2 a usage mistake (no
MANIFEST.md where NODE points), 1 an unexpected failure.

Examples:
  meshnode verify https://ann.example/mesh/
  meshnode verify --json ./ann-site | jq '.rows[] | select(.verdict != "agree")'

Flags:
`,
		run: runVerify,
	})
}

type verifyOptions struct {
	nodeFlags
	json         bool
	allowPrivate bool
}

func runVerify(ctx context.Context, e *env, args []string) error {
	var o verifyOptions
	fs := newFlagSet("verify")
	fs.StringVar(&o.now, "now", "", "run as if the time were this RFC3339 instant")
	fs.BoolVar(&o.json, "json", false, "print the report as JSON")
	fs.BoolVar(&o.allowPrivate, "allow-private-addresses", false, "let reads reach loopback and private addresses (a LAN mesh)")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("run 'meshnode verify -h' for its flags", "verify: give one node, by URL or directory")
	}
	clock, err := o.clock(e)
	if err != nil {
		return err
	}
	src := fs.Arg(0)
	if !audit.IsURL(src) {
		if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
			return usagef("give the node's URL (http:// or https://) or a directory of its public files", "verify: %s is neither a URL nor a directory", src)
		}
	}
	rep, err := audit.Run(ctx, audit.Options{Source: src, AllowPrivate: o.allowPrivate, Now: clock(), Version: userAgentVersion()})
	if errors.Is(err, audit.ErrNoManifest) {
		return usagef("give the URL a node's MANIFEST.md is served under, or the directory that holds it", "verify: %v", err)
	}
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if o.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = printVerify(e.stdout, rep)
	}
	if err != nil {
		return err
	}
	if n := rep.Problems(); n > 0 {
		return &problemsFound{n: n}
	}
	return nil
}

// printVerify writes the report for a person: a summary, then every row
// that is not agreed, every bad file and every peer not read. What the
// audited node served (its names, rows, pages, errors quoting them) goes
// through peertext.Clean, so it cannot drive the terminal.
func printVerify(w io.Writer, r *audit.Report) error {
	fmt.Fprintf(w, "%s at %s (read from %s)\n", peertext.Clean(r.Agent), r.URL, r.Source)
	if r.Signal != nil {
		fmt.Fprintf(w, "SIGNAL %g, %s, standing %t\n", r.Signal.Signal, r.Signal.Tier, r.Signal.Standing)
	}
	fmt.Fprintf(w, "statuses: %d agree, %d lag, %d disagree\n", r.Agree, r.Lag, r.Disagree)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, row := range r.Rows {
		switch row.Verdict {
		case audit.Lag:
			fmt.Fprintf(tw, "lag\tseq %d\t%s\tpublished %s, files give %s; dated after %s: %s\n", row.Seq, peertext.Clean(row.File), peertext.Clean(string(row.Published)), row.Computed,
				r.SeenAt.Format("2006-01-02 15:04 UTC"), peertext.Clean(strings.Join(row.Late, ", ")))
		case audit.Disagree:
			fmt.Fprintf(tw, "disagree\tseq %d\t%s\tpublished %s, files give %s\n", row.Seq, peertext.Clean(row.File), peertext.Clean(string(row.Published)), row.Computed)
		}
	}
	for _, o := range r.Outside {
		fmt.Fprintf(tw, "outside\tseq %d\t%s\tnot on the jury of %s (%s)%s: counts for nothing\n", o.Seq, peertext.Clean(o.File), o.TraceHash, peertext.Clean(strings.Join(o.Jury, ", ")), reserveNote(o.Reserve, o.LateReserve))
	}
	for _, f := range r.Files {
		fmt.Fprintf(tw, "bad file\tseq %d\t%s\t%s\n", f.Seq, peertext.Clean(f.File), peertext.Clean(f.Problem))
	}
	for _, p := range r.Peers {
		if p.Error != "" {
			fmt.Fprintf(tw, "not read\t%s\t%s\t%s\n", peertext.Clean(p.Agent), p.URL, peertext.Clean(p.Error))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return printSite(w, r.Site)
}

// printSite writes what the node's pages show that the files do not
// give, and what of them could not be checked.
func printSite(w io.Writer, s *audit.Site) error {
	if len(s.Claims) > 0 {
		fmt.Fprintf(w, "pages: %d agree, %d lag, %d disagree\n", s.Agree, s.Lag, s.Disagree)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range s.Claims {
		if c.Verdict != audit.Agree {
			fmt.Fprintf(tw, "%s\t%s\t%s %s\tshows %s, files give %s\n", c.Verdict, c.Page, peertext.Clean(c.Subject), c.Field, peertext.Clean(c.Shown), c.Computed)
		}
	}
	for _, n := range s.Notes {
		fmt.Fprintf(tw, "note\t%s\n", peertext.Clean(n))
	}
	return tw.Flush()
}

// reserveNote is how an outside validation's line names the trace's
// reserve (mesh-2026-6) and late reserve (mesh-2026-7): "" under rule
// sets without them.
func reserveNote(reserve, late []string) string {
	out := ""
	if len(reserve) > 0 {
		out = " nor in its reserve (" + strings.Join(reserve, ", ") + ")"
	}
	if len(late) > 0 {
		out += " nor in its late reserve (" + strings.Join(late, ", ") + ") dated from its late epoch on"
	}
	return out
}
