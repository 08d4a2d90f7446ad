package audit

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/presence"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/signal"
)

// Options say which node to audit and how.
type Options struct {
	// Source is the audited node: a directory holding its public files,
	// or the URL its MANIFEST.md is served under.
	Source string
	// AllowPrivate lets reads reach loopback and private addresses (a LAN
	// mesh, tests), as mesh.yaml's allow_private_addresses does.
	AllowPrivate bool
	Now          time.Time    // zero: time.Now
	Version      string       // for the User-Agent
	Logger       *slog.Logger // nil: discard
}

// Verdicts of a row.
const (
	Agree    = "agree"
	Lag      = "lag"
	Disagree = "disagree"
)

// Report is what an audit found. Rows are in MANIFEST order.
type Report struct {
	Agent  string        `json:"agent"`
	URL    string        `json:"url"`
	Source string        `json:"source"`
	SeenAt time.Time     `json:"seen_at,omitzero"`
	Signal *signal.Agent `json:"signal"`
	Rows   []Row         `json:"rows"`
	Files  []FileProblem `json:"files"`
	Peers  []PeerRead    `json:"peers"`
	// Site judges what the node's pages show, when it publishes a site.
	Site     *Site `json:"site"`
	Agree    int   `json:"agree"`
	Lag      int   `json:"lag"`
	Disagree int   `json:"disagree"`
	// Outside lists the node's validations outside its assignment, under
	// a rule set that assigns traces (mesh-2026-4, mesh-2026-5).
	Outside []Outside `json:"outside,omitempty"`
}

// Row is one of the audited node's traces: the status its MANIFEST
// publishes beside the status the files give.
type Row struct {
	Seq       manifest.Seq    `json:"seq"`
	File      string          `json:"file"`
	Hash      manifest.Hash   `json:"hash"`
	Published manifest.Status `json:"published"`
	Computed  manifest.Status `json:"computed"`
	// SeenStatus is what the files give without the peers' files dated
	// after SeenAt: what the node could have computed when it last wrote.
	SeenStatus manifest.Status `json:"seen_status"`
	Verdict    string          `json:"verdict"`
	// Late names the validators whose validations of the trace are dated
	// after SeenAt, for a row that lags.
	Late []string `json:"late,omitempty"`
}

// FileProblem is one of the audited node's own files that its MANIFEST
// lists and that is missing or does not hash to what the row says.
type FileProblem struct {
	Seq     manifest.Seq `json:"seq"`
	File    string       `json:"file"`
	Problem string       `json:"problem"`
}

// PeerRead is one agent the audited node names, and whether its files
// could be read.
type PeerRead struct {
	Agent string `json:"agent"`
	URL   string `json:"url"`
	Error string `json:"error,omitempty"`
}

// Problems is the number of findings that are not lag: disagreeing rows,
// bad own files and disagreeing page values.
func (r *Report) Problems() int {
	n := r.Disagree + len(r.Files)
	if r.Site != nil {
		n += r.Site.Disagree
	}
	return n
}

// Run audits the node opts.Source names.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now().UTC()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	cfg := config.Default()
	cfg.Scorer, cfg.Gossip.Enabled, cfg.AllowPrivateAddresses = config.ScorerManual, false, opts.AllowPrivate
	client := heartbeat.NewClient(cfg, opts.Version, func() time.Time { return opts.Now })
	src := newSource(opts.Source, client)
	pub, err := readPublic(ctx, src, cfg.Limits)
	if err != nil {
		return nil, err
	}
	if u, ok := src.(urlSource); ok {
		pub.url = u.base
	}
	if pub.agent == "" || pub.url == "" {
		return nil, fmt.Errorf("%s: MANIFEST.md names no agent or no url: audit the node by its URL", src)
	}
	pub.seenAt = seenAt(pub.manifest, opts.Now)
	cfg.Agent, cfg.URL = pub.agent, pub.url
	in, failures, err := recompute(ctx, pub, heartbeat.Options{Config: cfg, Now: func() time.Time { return opts.Now },
		Logger: opts.Logger, Client: client, Version: opts.Version})
	if err != nil {
		return nil, err
	}
	full, seen := signal.Compute(in), signal.Compute(before(in, pub.seenAt, pub.url))
	rep := compare(pub, in, full, seen)
	rep.Site = auditSite(pub.pages, full, seen, rep.Rows)
	rep.Outside = outside(pub, full)
	rep.Source = src.String()
	rep.Files = pub.problems
	rep.Peers = peerReads(pub.peers, pub.url, failures)
	return rep, nil
}

// newSource reads from the URL s names, through client, or from the
// directory s.
func newSource(s string, client *fetch.Client) source {
	if !IsURL(s) {
		return dirSource{dir: s}
	}
	if !strings.HasSuffix(s, "/") {
		s += "/"
	}
	return urlSource{base: s, client: client}
}

// recompute lays pub out as a scratch node, runs its heartbeat with hb to
// read the agents it names, and gathers SIGNAL's input from what that
// recorded and pub's own files. It returns the polls that failed.
func recompute(ctx context.Context, pub *public, hb heartbeat.Options) (signal.Input, []report.Failure, error) {
	scratch, err := os.MkdirTemp("", "meshnode-verify-")
	if err != nil {
		return signal.Input{}, nil, err
	}
	defer os.RemoveAll(scratch)
	if err := pub.lay(scratch); err != nil {
		return signal.Input{}, nil, err
	}
	hb.Dir = scratch
	sum, err := heartbeat.Run(ctx, hb)
	if err != nil {
		return signal.Input{}, nil, fmt.Errorf("read the agents %s names: %w", pub.agent, err)
	}
	// The heartbeat rewrote the scratch MANIFEST with its own statuses:
	// put back the audited node's own, which SIGNAL reads its rows from.
	if err := os.WriteFile(filepath.Join(scratch, node.ManifestFile), pub.manifestRaw, 0o644); err != nil {
		return signal.Input{}, nil, err
	}
	in, err := signal.Load(scratch, pub.agent, pub.url)
	return in, sum.Failures, err
}

// compare judges every trace row of the audited manifest against full,
// SIGNAL computed from in, and seen, computed from what in held when the
// node last wrote.
func compare(pub *public, in signal.Input, full, seen signal.Report) *Report {
	rep := &Report{Agent: pub.agent, URL: pub.url, SeenAt: pub.seenAt, Rows: []Row{}}
	if a, ok := signal.Self(full, pub.url); ok {
		rep.Signal = &a
	}
	computed, seenStatus := statuses(full), statuses(seen)
	for _, e := range pub.manifest.Entries {
		if e.Hash == "" || path.Dir(e.File) != node.TracesDir {
			continue
		}
		r := Row{Seq: e.Seq, File: e.File, Hash: e.Hash, Published: manifest.NormalizeStatus(e.Status),
			Computed: orPending(computed[e.Hash]), SeenStatus: orPending(seenStatus[e.Hash])}
		r.Verdict = judge(r.Published == r.Computed, r.Published == r.SeenStatus)
		switch r.Verdict {
		case Agree:
			rep.Agree++
		case Lag:
			r.Late = late(in, e.Hash, pub.seenAt)
			rep.Lag++
		default:
			rep.Disagree++
		}
		rep.Rows = append(rep.Rows, r)
	}
	return rep
}

// judge is the verdict on a published value: agree when it is what the
// files give, lag when it is what they gave when the node last wrote,
// disagree otherwise (docs/decisions.md, Verify).
func judge(isComputed, isSeen bool) string {
	switch {
	case isComputed:
		return Agree
	case isSeen:
		return Lag
	}
	return Disagree
}

// before keeps of in what a node that last wrote at seen could have read:
// its own files, and the peers' traces, other listings of traces' bytes,
// validations and disputes not dated after seen, under the same founders
// and rule set. A file with no date is kept: nothing says it came later.
func before(in signal.Input, seen time.Time, self string) signal.Input {
	if seen.IsZero() {
		return in
	}
	out := signal.Input{Founders: in.Founders, Rules: in.Rules}
	for _, t := range in.Traces {
		if t.AgentURL == self || !t.Submitted.After(seen) {
			out.Traces = append(out.Traces, t)
		}
	}
	for _, t := range in.Copies {
		if t.AgentURL == self || !t.Submitted.After(seen) {
			out.Copies = append(out.Copies, t)
		}
	}
	for _, v := range in.Validations {
		if v.ValidatorURL == self || !v.ValidatedAt.After(seen) {
			out.Validations = append(out.Validations, v)
		}
	}
	for _, d := range in.Disputes {
		if d.ReporterURL == self || !d.ObservedAt.After(seen) {
			out.Disputes = append(out.Disputes, d)
		}
	}
	return out
}

// late names the validators of hash whose validations are dated after seen.
func late(in signal.Input, hash manifest.Hash, seen time.Time) []string {
	var names []string
	for _, v := range in.Validations {
		if v.TraceHash == hash && v.ValidatedAt.After(seen) {
			names = append(names, v.Validator)
		}
	}
	return names
}

func statuses(r signal.Report) map[manifest.Hash]manifest.Status {
	out := map[manifest.Hash]manifest.Status{}
	for _, t := range r.Traces {
		out[t.Hash] = t.Status
	}
	return out
}

func orPending(s manifest.Status) manifest.Status {
	if s == "" {
		return manifest.StatusPending
	}
	return s
}

// peerReads lists the agents the audited node names, with the failure of
// the poll that could not read one.
func peerReads(peers []roster.Agent, self string, failures []report.Failure) []PeerRead {
	failed := map[string]string{}
	for _, f := range failures {
		failed[f.URL] = f.Error
	}
	out := []PeerRead{}
	for _, p := range peers {
		if p.URL == self {
			continue
		}
		out = append(out, PeerRead{Agent: p.Name, URL: p.URL, Error: failed[p.URL]})
	}
	return out
}

// seenAt is when the audited node last wrote what it saw: the newest of
// its MANIFEST's updated time and its rows' times, as presence reads it.
func seenAt(m *manifest.Manifest, now time.Time) time.Time {
	times := []time.Time{m.Updated}
	for _, e := range m.Entries {
		times = append(times, e.Submitted)
	}
	return presence.Newest(times, now)
}
