package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/presence"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/state"
)

func init() {
	register(&command{
		name:    "peers",
		summary: "list known agents with presence, cursor and breaker state",
		usage: `Usage: meshnode peers [--dir DIR] [--now T] [--json]
       meshnode peers repin NAME [--dir DIR] [--now T]
       meshnode peers forgive-relay URL [--dir DIR] [--now T]

Lists every agent this node knows: those in AGENTS.md and those learned from
peers' AGENTS.md (gossip). For each: its URL, presence (active, stale,
offline, unreachable, unknown: see internal/presence) and the evidence it
rests on ("last published 2026-03-14 04:50 UTC", "not reached yet"),
consecutive failures and backoff, cursor (last seq seen) and gaps still
asked for, when it was last polled and when it is polled next (a quiet peer
less often: its presence is then as of its last poll), and how many of its
traces and validations the ledger holds (and, with --json, how many of its
traces another agent lists too: copies), and how it is read: from its
MANIFEST.md, or from its signed log (verified entries), or refused (a
fork, a bad signature, a key change, an altered entry or tile, a log
gone: docs/decisions.md, "Reading a peer's signed log").

Under the table, a line for each relay of mesh.yaml's relays.list: ok,
lagging (an agent it lists trails another relay or a direct poll by an
hour or more) or faulted (with the file holding the evidence), how many
of its entries the node has read, and how often it was forgiven
(docs/decisions.md, "Relays").

"peers forgive-relay URL" is the only way back for a faulted relay, once
its evidence is checked: it drops what the node holds of the relay but its
faults, which stay, evidence and all, among the relay's resolved faults,
and the next heartbeat reads the relay from the start.

"peers repin NAME" is the only way past a refused log, or a log its owner
re-started under a new key: it forgets the key and checkpoint pinned for
NAME (an agent's name or URL), keeps the alarm as evidence, and the next
heartbeat pins the key NAME's IDENTITY.md then publishes. Check that key
with the agent first.

Reads mesh.yaml, AGENTS.md and mesh-state/ only; it polls nothing. --json prints a list
of objects, one per agent; the schema is in docs/cli/peers.md.

Examples:
  meshnode peers
  meshnode peers repin ada
  meshnode peers forgive-relay https://relay.example/mesh/
  meshnode peers --json | jq -r '.[] | select(.presence == "unreachable") | .url'

Flags:
`,
		run: runPeers,
	})
}

type peersOptions struct {
	nodeFlags
	json bool
}

// peerRow is one agent in the listing and in --json (docs/cli/peers.md).
type peerRow struct {
	Agent           string        `json:"agent"`
	URL             string        `json:"url"`
	Source          string        `json:"source"` // "agents.md" or "gossip"
	LearnedFrom     string        `json:"learned_from,omitempty"`
	Presence        string        `json:"presence"`
	PresenceNote    string        `json:"presence_note"`
	PresenceAsOf    time.Time     `json:"presence_as_of"`
	Evidence        *time.Time    `json:"evidence"`
	Status          string        `json:"status,omitempty"`
	FailureCount    int           `json:"failure_count"`
	Backoff         string        `json:"backoff,omitempty"`
	LastError       string        `json:"last_error,omitempty"`
	LastSeenSeq     manifest.Seq  `json:"last_seen_seq"`
	Gaps            []state.Range `json:"gaps"`
	GapCount        int           `json:"gap_count"`
	LastPolled      *time.Time    `json:"last_polled"`
	LastSuccess     *time.Time    `json:"last_success"`
	ManifestUpdated *time.Time    `json:"manifest_updated"`
	NewestEntry     *time.Time    `json:"newest_entry"`
	NextPoll        *time.Time    `json:"next_poll"`
	Traces          int           `json:"traces"`
	Validations     int           `json:"validations"`
	// Copies counts its traces whose bytes another agent lists too
	// (docs/decisions.md, Copies).
	Copies int `json:"copies,omitempty"`
	// Rules is the rule set the peer's MANIFEST.md declares; RulesNote
	// says, when it is not ours, how it differs (docs/decisions.md, Rule sets).
	Rules     string `json:"rules,omitempty"`
	RulesNote string `json:"rules_note,omitempty"`
	// Log says how the peer is read: "manifest", its signed log's
	// verified entries, or why its log is refused (logpin.State).
	Log string `json:"log"`
}

func runPeers(ctx context.Context, e *env, args []string) error {
	var o peersOptions
	fs := newFlagSet("peers")
	o.add(fs)
	fs.BoolVar(&o.json, "json", false, "print the list as JSON")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	clock, err := o.clock(e)
	if err != nil {
		return err
	}
	if fs.NArg() == 2 && fs.Arg(0) == "repin" {
		return runRepin(e.stdout, o.dir, fs.Arg(1), clock())
	}
	forgive := fs.NArg() == 2 && fs.Arg(0) == "forgive-relay"
	if fs.NArg() > 0 && !forgive {
		return usagef("run 'meshnode peers -h' for its flags", "peers: unexpected argument %q", fs.Arg(0))
	}
	// A broken or missing mesh.yaml is said, not shown as "no peers".
	cfg, err := config.Load(o.dir)
	if err != nil {
		return err
	}
	if forgive {
		return runForgiveRelay(e.stdout, o.dir, fs.Arg(1), cfg, clock())
	}
	l, err := listPeers(o.dir, cfg, clock())
	if err != nil {
		return err
	}
	sayAgentsSkipped(e.stderr, l.skipped)
	if o.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(l.rows)
	}
	if err := printPeers(e.stdout, l.rows, clock()); err != nil {
		return err
	}
	printRelays(e.stdout, l.relays)
	return nil
}

// peersListing is what `peers` shows: a row per agent, a row per relay,
// and the lines of AGENTS.md that list no agent.
type peersListing struct {
	rows    []peerRow
	relays  []relayRow
	skipped []roster.Problem
}

// sayAgentsSkipped shows each line of AGENTS.md that lists no agent on w
// (stderr): whoever it meant is never polled.
func sayAgentsSkipped(w io.Writer, skipped []roster.Problem) {
	for _, p := range skipped {
		fmt.Fprintf(w, "meshnode: %s\n", p)
	}
}

// listPeers joins the agents the node knows (node.Snapshot.Known), their
// cursors and the ledger into one row per agent, sorted by name then URL,
// judges the relays of relays.list, and returns the lines of AGENTS.md it
// skipped.
func listPeers(dir string, cfg *config.Config, now time.Time) (*peersListing, error) {
	snap, err := node.Open(dir, node.Options{})
	if err != nil {
		return nil, err
	}
	if snap.AgentsErr != nil {
		return nil, snap.AgentsErr
	}
	// Our rule set is compared with each peer's only when our
	// FOUNDERS.md parses; doctor and signal report one that does not.
	ours, _ := signal.ParseFounders(snap.Founders)
	pins, err := logpin.Load(filepath.Join(dir, node.LogPinsFile))
	if err != nil {
		return nil, err
	}
	rows := []peerRow{}
	for _, k := range snap.Known(cfg.URL) {
		source := "gossip"
		if k.Listed {
			source = "agents.md"
		}
		r := peerRowFor(k.Name, k.URL, source, snap.Cursors.Cursors[k.URL], snap.Ledger, now)
		r.Log = logpin.State(pins.Get(k.URL))
		if ours.Rules != "" {
			r.RulesNote = signal.RulesNote(r.Agent, ours.Rules, r.Rules)
		}
		rows = append(rows, r)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Agent != rows[j].Agent {
			return rows[i].Agent < rows[j].Agent
		}
		return rows[i].URL < rows[j].URL
	})
	relays, err := listRelays(dir, cfg, pins, snap.Cursors, now)
	if err != nil {
		return nil, err
	}
	return &peersListing{rows: rows, relays: relays, skipped: snap.AgentsProblems}, nil
}

func peerRowFor(name, url, source string, c *state.Cursor, led *ledger.Ledger, now time.Time) peerRow {
	if c == nil {
		c = &state.Cursor{}
	}
	r := peerRow{
		Agent: name, URL: url, Source: source, LearnedFrom: c.LearnedFrom,
		Status: c.Status, FailureCount: c.FailureCount, Backoff: c.Backoff, LastError: c.LastError,
		LastSeenSeq: c.LastSeenSeq, Gaps: append([]state.Range{}, c.Gaps...), GapCount: c.Gaps.Count(),
		LastPolled: timeOrNil(c.LastPolled), LastSuccess: timeOrNil(c.LastSuccess), ManifestUpdated: timeOrNil(c.ManifestUpdated),
		NextPoll: timeOrNil(c.NextAt(now)),
		Traces:   len(led.TracesBy(url)) + len(led.CopiesBy(url)), Validations: len(led.ValidationsBy(url)), Copies: led.CopiedBy(url),
		Rules: c.Rules,
	}
	j := presence.Of(c, now)
	r.Presence, r.PresenceNote, r.PresenceAsOf = string(j.Presence), j.Words(), j.AsOf.UTC()
	r.Evidence, r.NewestEntry = timeOrNil(j.Evidence), timeOrNil(c.NewestEntry)
	return r
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
