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

	"github.com/meshnode/meshnode/internal/manifest"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/peertext"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

func init() {
	register(&command{
		name:    "inbox",
		summary: "list the validation queue, or settle an item by hand",
		usage: `Usage: meshnode inbox [--dir DIR] [--now T] [--json]
       meshnode inbox done|fail|skip ID [--reason TEXT] [--dir DIR] [--now T]

Without an action, lists the validation queue (mesh-state/queue/, or the
PostgreSQL queue MESHNODE_QUEUE_DSN names, as the heartbeat uses it),
oldest first: id, type, from, status, trace URL, age and reason. --json
prints a list of objects; the schema is in docs/cli/inbox.md.

With an action, records a person's decision on the item ID (the 12-hex id
the listing shows): done (validated by other means), fail (the trace cannot
be scored) or skip (not worth scoring). Nothing in the queue is settled
without such an explicit action. A worker holding the item loses its claim.

Examples:
  meshnode inbox
  meshnode inbox --json | jq -r '.[] | select(.status == "queued") | .trace_url'
  meshnode inbox skip 3f2a9c01b7de --reason "duplicate of czero/058"

Flags:
`,
		run: runInbox,
	})
}

type inboxOptions struct {
	nodeFlags
	json   bool
	reason string
}

// inboxActions maps the words a person types to queue statuses.
var inboxActions = map[string]string{
	"done": queue.StatusDone,
	"fail": queue.StatusFailed,
	"skip": queue.StatusSkipped,
}

// inboxRow is one item in --json (docs/cli/inbox.md).
type inboxRow struct {
	ID             string             `json:"id"`
	Type           string             `json:"type"`
	From           string             `json:"from"`
	FromURL        string             `json:"from_url"`
	Status         string             `json:"status"`
	Reason         string             `json:"reason,omitempty"`
	TraceURL       string             `json:"trace_url"`
	Hash           manifest.Hash      `json:"hash"`
	Title          string             `json:"title,omitempty"`
	Seq            manifest.Seq       `json:"seq,omitempty"`
	QueuedAt       time.Time          `json:"queued_at"`
	UpdatedAt      time.Time          `json:"updated_at"`
	AgeSeconds     int64              `json:"age_seconds"`
	Owner          string             `json:"owner,omitempty"`
	LeaseExpires   *time.Time         `json:"lease_expires,omitempty"`
	Version        int                `json:"version"`
	Suggested      *validation.Scores `json:"suggested,omitempty"`
	SuggestedTotal *int               `json:"suggested_total,omitempty"`
}

func runInbox(ctx context.Context, e *env, args []string) error {
	var o inboxOptions
	fs := newFlagSet("inbox")
	o.add(fs)
	fs.BoolVar(&o.json, "json", false, "print the queue as JSON")
	fs.StringVar(&o.reason, "reason", "", "why (with done, fail or skip)")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	clock, err := o.clock(e)
	if err != nil {
		return err
	}
	// The queue is a node's: a directory whose mesh.yaml is not one is
	// said so, not shown as an empty inbox.
	if _, err := config.Load(o.dir); err != nil {
		return err
	}
	q, closeQueue, err := nodeQueue(o.dir, clock)
	if err != nil {
		return err
	}
	defer closeQueue()
	switch fs.NArg() {
	case 0:
		if o.reason != "" {
			return usagef("give an action: meshnode inbox done|fail|skip ID --reason TEXT", "inbox: --reason needs an action")
		}
		return listInbox(e.stdout, q, o.json, clock())
	case 2:
		return settleInbox(e.stdout, q, fs.Arg(0), fs.Arg(1), o.reason, clock())
	}
	return usagef("run 'meshnode inbox -h' for its usage", "inbox: want no arguments or an action and an ID, got %d arguments", fs.NArg())
}

func settleInbox(w io.Writer, q queue.Store, action, id, reason string, now time.Time) error {
	status, ok := inboxActions[action]
	if !ok {
		return usagef("the actions are done, fail and skip", "inbox: unknown action %q", action)
	}
	if reason == "" {
		reason = "marked " + action + " by hand"
	}
	err := queue.Set(q, id, status, reason, now)
	if errors.Is(err, queue.ErrNotFound) {
		return usagef("run 'meshnode inbox' to list the IDs", "inbox: no item %q in the queue", id)
	}
	if err != nil {
		return fmt.Errorf("inbox %s %s: %w", action, id, err)
	}
	fmt.Fprintf(w, "%s: %s (%s)\n", peertext.Clean(id), status, peertext.Clean(reason))
	return nil
}

// listInbox prints the inbox. Every value a peer supplied passes through
// peertext.Clean on its way to the terminal: a queue written before
// metadata was cleaned where it is parsed, or by another program, may hold
// escape sequences (a window title, a cleared screen, the clipboard).
func listInbox(w io.Writer, q queue.Store, asJSON bool, now time.Time) error {
	items, err := q.List()
	if err != nil {
		return fmt.Errorf("read queue: %w", err)
	}
	if asJSON {
		rows := make([]inboxRow, 0, len(items))
		for _, it := range items {
			rows = append(rows, inboxRowFor(it, now))
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(items) == 0 {
		fmt.Fprintln(w, "the inbox is empty: the heartbeat queues peers' pending traces here")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTYPE\tFROM\tSTATUS\tAGE\tTRACE\tREASON")
	for _, it := range items {
		queued := it.QueuedAt
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", peertext.Clean(it.ID), dashIfEmpty(peertext.Clean(it.Type)),
			peertext.Clean(it.From), peertext.Clean(it.Status), ageText(&queued, now), peertext.Clean(it.TraceURL),
			dashIfEmpty(strings.Join(strings.Fields(peertext.Clean(it.Reason)), " ")))
	}
	return tw.Flush()
}

func inboxRowFor(it queue.Item, now time.Time) inboxRow {
	r := inboxRow{
		ID: it.ID, Type: it.Type, From: it.From, FromURL: it.FromURL, Status: it.Status, Reason: it.Reason,
		TraceURL: it.TraceURL, Hash: it.Hash, Title: it.Title, Seq: it.Seq,
		QueuedAt: it.QueuedAt.UTC(), UpdatedAt: it.UpdatedAt.UTC(), AgeSeconds: int64(max(now.Sub(it.QueuedAt), 0) / time.Second),
		Owner: it.Owner, LeaseExpires: timeOrNil(it.LeaseExpires), Version: it.Version, Suggested: it.Suggested,
	}
	if it.Suggested != nil {
		total := it.Suggested.Total()
		r.SuggestedTotal = &total
	}
	return r
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
