package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/manifest"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/logsource"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/presence"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/state"
)

// Options configure one heartbeat.
type Options struct {
	Dir      string
	Config   *config.Config
	Now      func() time.Time
	Logger   *slog.Logger
	Client   *fetch.Client                      // nil: built from Config
	Progress func(done, total int, peer string) // nil: no progress display
	Version  string                             // for the User-Agent
	// Queue is where the validation queue lives; nil: the PostgreSQL
	// store MESHNODE_QUEUE_DSN names when it is set, else mesh-state/.
	Queue queue.Store
	// NoWait makes Run give up at once, with an error wrapping
	// node.ErrLocked, when another process holds the node's lock: a
	// watching node skips a tick rather than queue it (docs/watch.md).
	NoWait bool
	// ManifestWindow and ManifestChunk size our MANIFEST.md and its
	// archive pages (publish.Options); 0 means the defaults.
	ManifestWindow, ManifestChunk int
	// LogKey is the signing key of the node's log (a signed-note signer
	// key, translog.GenerateKey); "" publishes no signed log and says so
	// in the summary (KeyHint). It is read by the command, never from
	// the node's directory.
	LogKey string

	pubLimits *pubLimits // what peers can make us publish; nil: defaultPubLimits (tests shrink it)
	// onBudget, when set (tests), is told the bytes of peers' files the
	// heartbeat still holds when it ends, and the most it held at once.
	onBudget func(now, peak int64)

	// Waiting, when set, is told once that another process holds the
	// node's lock and this run waits for it: who holds it (node.LockHolder,
	// "" when unknown) and for how long at most.
	Waiting func(holder string, upTo time.Duration)
}

// job is one heartbeat's working set.
type job struct {
	opts     Options
	cfg      *config.Config
	now      time.Time
	log      *slog.Logger
	client   *fetch.Client
	snap     *node.Snapshot // the node as opened: the one read of its files
	state    *state.State
	ledger   *ledger.Ledger
	queue    queue.Store
	mu       sync.Mutex // guards sum while items are scored concurrently
	sum      report.Summary
	fetched  map[manifest.Hash]fetched // this run's verified traces to score, with their bytes, by hash (guarded by mu)
	refresh  bool                      // our MANIFEST's updated time was refreshed
	own      map[manifest.Hash]bool    // hashes of our own traces: never validated by us
	names    *roster.Binding           // agent names to URLs; built by peers
	misnamed int                       // validations of the peer being applied that named another validator
	disputes []*dispute.Dispute        // this run's hash mismatches, to publish (apply → publishDisputes)
	// stateKeys maps the state key of each URL the node keeps files of
	// (statefile.PeerFileName) to that URL: built by peers, grown by
	// learn (holdStateKey).
	stateKeys map[string]string
	// firstSeen keeps the first-seen times of records forgotten to be
	// read again, and rereading the peers read again (rereadMisread).
	firstSeen map[manifest.Hash]time.Time
	rereading map[string]bool
	// disputeCount counts, by peer URL, the disputes published about it
	// and those this run adds (disputesAbout).
	disputeCount map[string]int
	// ourDisputes: our dispute files parsed, once ourDisputesRead.
	ourDisputesParsed []*dispute.Dispute
	ourDisputesRead   bool
	// peerDisputes counts, by peer URL, the disputes by it the ledger
	// holds (disputesBy); heldDisputes, those of the peer being applied
	// that maxDisputesPerPeer kept out.
	peerDisputes map[string]int
	heldDisputes int
	// published is, by file hash, the URL of the agent whose validation
	// or dispute of those bytes the ledger holds, or severalPublishers
	// (publishedByAnother), for the hashes in brought only: those the
	// polls bring as traces (tracesBrought).
	published map[manifest.Hash]string
	brought   map[manifest.Hash]bool
	// notTraces are the hashes whose records as a trace undoTraceListings
	// dropped this run, for apply to unqueue (unqueueNotTraces).
	notTraces map[manifest.Hash]bool
	pub       *pubBudget                         // what may still be published of each peer's (publishing)
	signal    *computedSignal                    // the last SIGNAL computed (signalReport)
	input     *gatheredInput                     // the last SIGNAL input gathered (signalInput)
	duty      *computedDuty                      // the reserve's duty last computed (reserveDuty)
	stale     ledgerFact[map[string]bool]        // the peers to read again (misreadPeers)
	kept      ledgerFact[map[manifest.Hash]bool] // the copies' selection (copiesKept)
	// items is the queue as listed once after apply (queueItems), with
	// the statuses this run's claims ended in.
	items   []queue.Item
	settled map[string]int // the settled items, counted by status
	listed  bool
	// budget is what this heartbeat's polls spent together, and the bytes
	// of peers' files held: being fetched, or kept in fetched for scoring.
	budget nodeBudget
	// pins are the keys and checkpoints of peers' signed logs
	// (internal/logpin), saved with the cursors.
	pins *logpin.Pins
	// pools are the pools of past epochs SIGNAL and the assignments
	// share (assignmentPools), saved at the end.
	pools *signal.Pools
	// relays are the relays read this heartbeat (readRelays), nil
	// before.
	relays *relays
	// held holds the copies of the traces the polls fetched (heldCopies);
	// letGo are the files of the traces the apply recorded whose copy
	// held let go of while polling, by hash, which backfillCopies fetches
	// again when the copies' bounds select them.
	held  *heldCopies
	letGo map[manifest.Hash]copyFile
	// quiet is the derived record this heartbeat uses instead of the
	// history while the snapshot defers it (quiet.go); nil once the
	// history is loaded.
	quiet *derived
	// heldResults are the workers' results publishResults held back for
	// their withdrawn traces (holdResult), kept in the derived record.
	heldResults []heldResult
	// quietTree is the history's tree the quiet check digested (gittree.Current).
	quietTree []byte
	histErr   error // loading the history where no error can be returned (led)
}

// Run runs one heartbeat of the node in opts.Dir. It returns an error only
// for local failures; whatever peers do is in the Summary.
func Run(ctx context.Context, opts Options) (*report.Summary, error) {
	parent := ctx
	n, unlock, err := open(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer unlock()
	before := n.client.Stats()
	ctx, cancel := context.WithTimeout(ctx, n.cfg.Heartbeat.Deadline)
	defer cancel()

	if ev := n.state.EvictSeen(n.now); ev > 0 {
		n.log.Info("evicted seen hashes older than 90 days", "count", ev)
	}
	peers, err := n.peers()
	if err == nil {
		err = n.histErr
	}
	if err != nil {
		return nil, err
	}
	if err := n.rereadMisread(peers); err != nil {
		return nil, err
	}
	// Polling stops early enough to leave scoring its own share.
	pollCtx, cancelPoll := context.WithTimeout(ctx, pollWindow(n.cfg.Heartbeat.Deadline))
	if err := n.readRelays(pollCtx, peers); err != nil {
		cancelPoll()
		return nil, err
	}
	results := n.timedPoll(pollCtx, peers)
	cancelPoll()
	n.settleRelays()
	n.reportLogs(peers)
	if err := n.quietUnless(results); err != nil {
		return nil, err
	}
	if err := n.apply(results); err != nil {
		return nil, err
	}
	n.backfillCopies(ctx, results)
	n.compareRules(peers)
	// The ledger goes down before scoring: a validation on disk always
	// names a trace the saved ledger knows (check's rule), wherever a
	// crash stops the run.
	if err := n.saveLedger(); err != nil {
		return nil, err
	}
	if err := n.validate(ctx); err != nil {
		return nil, err
	}
	if err := n.publishResults(); err != nil {
		return nil, err
	}
	if err := n.publish(); err != nil {
		return nil, err
	}
	if err := n.save(); err != nil {
		return nil, err
	}
	if err := n.savePools(); err != nil {
		return nil, err
	}
	if err := n.saveDerived(ctx); err != nil {
		return nil, err
	}
	n.reportHeld()
	n.countPolling(before)
	n.dropBodies()
	n.sum.SortLists()
	n.sum.Interrupted = errors.Is(parent.Err(), context.Canceled)
	return &n.sum, nil
}

// pollAll polls every peer concurrently, at most Heartbeat.Concurrency at a
// time. Each poll works on its own copy of its cursor.
func (n *job) pollAll(ctx context.Context, peers []peer) []*pollResult {
	pl := &poller{
		client:    n.client,
		now:       n.now,
		seen:      n.state.SeenFrom,
		rereading: n.rereading,
		selfURL:   n.cfg.URL,
		limits:    limits{manifest: n.cfg.Limits.ManifestBytes, trace: n.cfg.Limits.TraceBytes, agents: n.cfg.Limits.AgentsBytes},
		logf:      func(f string, a ...any) { n.log.Warn(fmt.Sprintf(f, a...)) },
		wantPeers: n.cfg.Gossip.Enabled,
		schedule:  schedule(n.cfg),
		// As many of a peer's files as an HTTP/2 host takes at once.
		fileWorkers: max(n.cfg.Heartbeat.MaxStreamsPerHost, n.cfg.Heartbeat.MaxConnsPerHost),
		parsing:     semaphore.NewWeighted(maxParseBytes),
		pages:       semaphore.NewWeighted(maxParseBytes),
		node:        &n.budget,
		relays:      n.relays,
		copies:      n.held,
		scorable: func(p peer, f *fetched) bool {
			return f.kind == node.KindTrace && n.queueable(p, f.entry.Hash, manifest.NormalizeStatus(f.entry.Status))
		},
	}
	// The one place the source of peers' entries is chosen: a peer's
	// signed log once it publishes one, else its MANIFEST.md. A poll reads
	// as much of a log as of a MANIFEST.md: the rows it works on, and
	// limits.manifest_bytes of tiles and bundles.
	// News a relay listed is read under its checkpoint, verified with the
	// pinned key, without asking the peer for its own.
	src := &logsource.Source{Client: n.client, Manifest: manifestSource{pl}, Pins: n.pins, Now: n.now, Logf: pl.logf,
		MaxEntries: maxEntriesPerPoll, MaxBytes: n.cfg.Limits.ManifestBytes}
	if n.relays != nil {
		src.Relayed, src.DirectPoll = n.relays.reader, n.cfg.Relays.DirectPoll
	}
	pl.source = src
	results := make([]*pollResult, len(peers))
	var mu sync.Mutex
	done := 0
	var g errgroup.Group
	g.SetLimit(n.cfg.Heartbeat.Concurrency)
	for _, i := range byHostInTurn(peers) {
		p := peers[i]
		c := *n.state.Cursor(p.url)
		g.Go(func() error {
			// Each peer gets a bounded share of the polling time.
			pctx, cancel := context.WithTimeout(ctx, peerShare(n.cfg.Heartbeat.Deadline))
			defer cancel()
			results[i] = pl.poll(pctx, p, c)
			if n.opts.Progress != nil {
				mu.Lock()
				done++
				n.opts.Progress(done, len(peers), p.name)
				mu.Unlock()
			}
			return nil
		})
	}
	g.Wait()
	for _, r := range results {
		n.logPoll(r)
		if r.activity.Spike {
			n.log.Warn("spike: polling every heartbeat today", "peer", r.peer.name, "url", r.peer.url,
				"new_today", r.activity.Today, "daily_avg_7d", r.activity.DailyAvg)
		}
	}
	return results
}

// schedule is the config's adaptive polling schedule on the mesh's
// heartbeat.
func schedule(cfg *config.Config) state.Schedule {
	return state.Schedule{
		Heartbeat:   presence.Heartbeat,
		QuietAfter:  cfg.Polling.QuietAfter,
		MaxInterval: cfg.Polling.MaxInterval,
		SpikeFactor: cfg.Polling.SpikeFactor,
	}
}

// logPoll writes one line per peer poll, with docs/protocol.md §14's fields (event,
// fetched, new, duplicates, latency_ms, rate_limit_remaining, backoff)
// and the node's own (peer, outcome, seq, rejected, gaps, failure_count).
func (n *job) logPoll(r *pollResult) {
	attrs := []any{
		"event", "poll_complete",
		"peer", r.peer.name, "url", r.peer.url, "outcome", r.outcome,
		"seq", r.cursor.LastSeenSeq, "fetched", len(r.files) + len(r.mismatches),
		"new", len(r.files), "duplicates", r.dups,
		"rejected", len(r.mismatches) + len(r.rejected), "gaps", r.gapCount,
		"requests", r.requests, "latency_ms", r.latency.Milliseconds(),
		"failure_count", r.cursor.FailureCount,
	}
	if r.rateLeft >= 0 {
		attrs = append(attrs, "rate_limit_remaining", r.rateLeft)
	}
	if r.cursor.Backoff != "" {
		attrs = append(attrs, "backoff", r.cursor.Backoff)
	}
	if !r.cursor.NextPoll.IsZero() {
		attrs = append(attrs, "next_poll", r.cursor.NextPoll)
	}
	if r.activity.Spike {
		attrs = append(attrs, "spike", true, "new_today", r.activity.Today, "daily_avg_7d", r.activity.DailyAvg)
	}
	if r.err != nil {
		attrs = append(attrs, "err", r.err.Error())
	}
	n.log.Info("poll", attrs...)
}
