package heartbeat

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/meshnode/meshnode/internal/buildid"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/gittree"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
)

// derivedVersion names what a derived record holds and how its inputs
// are digested: a record of another version is never used.
const derivedVersion = 1

// maxDerivedBytes bounds the derived record as read: it holds a few
// strings and our own traces' hashes.
const maxDerivedBytes = 16 << 20

// derived is what a heartbeat computed from the node's history, kept in
// node.DerivedFile with the digest of the inputs it was computed from
// (docs/decisions.md, "A quiet heartbeat"). A heartbeat whose inputs
// digest the same, and that finds nothing new, uses it instead of
// loading the history.
type derived struct {
	Version int    `json:"version"`
	Inputs  string `json:"inputs"` // inputsDigest
	// CompactDue is when the ledger may next seal a quarter
	// (ledger.NextCompaction): a quiet heartbeat runs before it only.
	CompactDue time.Time `json:"compact_due"`
	// ReserveDue is when a trace of this node's reserve next comes due
	// under mesh-2026-6 (reserveDuty), or came due when one the queue
	// does not hold is due already (its bounds held it back): a quiet
	// heartbeat runs before it only. Zero: none is to come.
	ReserveDue time.Time `json:"reserve_due,omitzero"`
	// Own are the hashes of our own traces, never validated by us.
	Own []manifest.Hash `json:"own,omitempty"`
	// Standing is SIGNAL's word on the node (signal.ProgressOf), as the
	// summary says it.
	Standing     string `json:"standing,omitempty"`
	StandingNext string `json:"standing_next,omitempty"`
	HasStanding  bool   `json:"has_standing,omitempty"`
	// Held and LogUnsigned are what publishing said: the files it held
	// back, and why no signed log was published.
	Held        []report.Held `json:"held,omitempty"`
	LogUnsigned string        `json:"log_unsigned,omitempty"`
	// Misread and MissingCopies are the peers a heartbeat polling them
	// must load the history for: records made under an older reading of
	// rows (rereadMisread), and copies to fetch again (backfillCopies).
	Misread       []string `json:"misread,omitempty"`
	MissingCopies []string `json:"missing_copies,omitempty"`
	// HeldResults are the workers' results publishResults held back
	// because their peers withdrew their traces: a heartbeat without news
	// would hold them again (stillHeld).
	HeldResults []heldResult `json:"held_results,omitempty"`
}

// quietRecord returns the derived record a heartbeat may use instead of
// the history, or nil, with why not for the log: none kept, another
// version, other inputs (or git cannot say), or a quarter to seal. Our
// MANIFEST.md's presence refresh needs no history (quietRefresh).
func (n *job) quietRecord(tree *historyTree) (*derived, string) {
	listing, err := tree.wait()
	in, err := n.digestOf(listing, err)
	if err != nil {
		return nil, err.Error()
	}
	n.quietTree = listing
	d, err := readDerived(n.opts.Dir)
	if err != nil {
		return nil, err.Error()
	}
	if d == nil || d.Version != derivedVersion {
		return nil, "no derived state of this version"
	}
	switch {
	case in != d.Inputs:
		return nil, "the history changed since its derived state was computed"
	case !n.now.Before(d.CompactDue):
		return nil, "a quarter of the ledger is due to be sealed"
	case !d.ReserveDue.IsZero() && !n.now.Before(d.ReserveDue):
		return nil, "a trace of this node's reserve is due"
	}
	return d, ""
}

// readDerived reads node.DerivedFile: nil when there is none.
func readDerived(dir string) (*derived, error) {
	data, err := node.ReadFile(dir, node.DerivedFile, maxDerivedBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", node.DerivedFile, err)
	}
	d := &derived{}
	if err := json.Unmarshal(data, d); err != nil {
		// Derived state is recomputed, never trusted: one that does not
		// decode is as good as none.
		return nil, fmt.Errorf("%s does not decode: %w", node.DerivedFile, err)
	}
	return d, nil
}

// inputsDigest digests everything the derived record is computed from:
// what git would record for node.HistoryPaths were the work tree
// committed now (content hashes: gittree.Current, which reads HEAD when
// git finds the work tree clean there), the copies' stamp (copies.Stamp:
// they are never committed), the configuration as this run
// reads it, the binary's version, the log's key, the options that size
// our MANIFEST.md, and the peers the cursors know. Any change to one of
// them gives another digest; a commit of the work tree gives the same.
func (n *job) inputsDigest(ctx context.Context) (string, error) {
	return n.digestOf(gittree.Current(ctx, n.opts.Dir, node.HistoryPaths))
}

// digestOf is inputsDigest with what gittree.Current gave for the
// history: its tree, or why git could not say.
func (n *job) digestOf(tree []byte, err error) (string, error) {
	if err != nil {
		return "", err
	}
	stamp, err := copies.Stamp(filepath.Join(n.opts.Dir, node.CopiesFile))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "meshnode derived %d\nversion %q %q\nwindow %d %d\nlimits %+v\nkey %x\n",
		derivedVersion, n.opts.Version, buildid.Current(), n.opts.ManifestWindow, n.opts.ManifestChunk, n.opts.pubLimits, sha256.Sum256([]byte(n.opts.LogKey)))
	h.Write(config.Marshal(n.cfg))
	h.Write(tree)
	h.Write(stamp)
	for _, u := range n.state.SortedURLs() {
		c := n.state.Cursors[u]
		fmt.Fprintf(h, "peer %q %q %q %q\n", u, c.Agent, c.LearnedFrom, c.Status)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// history loads what the snapshot deferred, once, and logs why: from
// then on the heartbeat runs on the whole history and its derived record
// is set aside.
func (n *job) history(why string) error {
	if !n.snap.Deferred() {
		return nil
	}
	n.log.Info("history loaded", "reason", why)
	if err := loadThenCollect(n.snap.LoadHistory); err != nil {
		return err
	}
	n.ledger, n.own, n.quiet = n.snap.Ledger, n.snap.OwnHashes(), nil
	return nil
}

// led is the ledger, loaded first when the snapshot deferred it; a load
// that fails leaves an empty ledger and its error in n.histErr, which
// Run returns.
func (n *job) led() *ledger.Ledger {
	if err := n.history("a peer's records move or go"); err != nil {
		n.histErr = err
		return ledger.New()
	}
	return n.ledger
}

// quietUnless loads the history when a poll brought news, or reached a
// peer the derived record says needs it: then the heartbeat applies and
// publishes as it always does.
func (n *job) quietUnless(results []*pollResult) error {
	if n.quiet == nil {
		return nil
	}
	for _, r := range results {
		news := len(r.files)+len(r.records)+len(r.mismatches)+len(r.rejected)+len(r.learned) > 0 ||
			r.listed != nil || r.backwards
		switch {
		case news:
			return n.history("news from " + r.peer.url)
		case r.err == nil && slices.Contains(n.quiet.MissingCopies, r.peer.url):
			return n.history("copies to fetch again from " + r.peer.url)
		}
	}
	return nil
}

// saveDerived keeps, when this heartbeat loaded the history, what a
// heartbeat would compute from the history as this one leaves it, with
// the digest of its inputs as they stand in the work tree: the commit
// that follows records the same, so the next heartbeat that finds
// nothing new uses it and commits nothing (docs/decisions.md, "A quiet
// heartbeat").
func (n *job) saveDerived(ctx context.Context) error {
	if n.snap.Deferred() {
		return n.saveRefreshed(ctx)
	}
	// A history git cannot digest keeps no derived state; nor does one
	// without SIGNAL (an unknown rule set).
	in, err := n.inputsDigest(ctx)
	if err != nil {
		n.log.Info("no derived state kept", "reason", err.Error())
		return nil
	}
	// SIGNAL as the history now stands, which this heartbeat's
	// validations and rows may have changed since it took its standing.
	r, err := n.signalReport()
	if err != nil {
		return nil
	}
	st := signal.ProgressOf(r, n.cfg.URL)
	reserveDue, err := n.reserveDue()
	if err != nil {
		// A record that cannot say when a reserve trace comes due would let
		// quiet heartbeats pass it by.
		n.log.Info("no derived state kept", "reason", err.Error())
		return nil
	}
	d := &derived{Version: derivedVersion, Inputs: in, CompactDue: ledger.NextCompaction(n.now), ReserveDue: reserveDue,
		Own: sortedHashes(n.own), Standing: st.Reason(), StandingNext: st.Next(),
		HasStanding: st.HasStanding(), Held: n.sum.Held, LogUnsigned: n.sum.LogUnsigned,
		Misread: sortedKeys(n.misreadPeers()), MissingCopies: n.missingCopyPeers(),
		HeldResults: sortedHeldResults(n.heldResults)}
	return n.writeDerived(d)
}

// saveRefreshed keeps, when a heartbeat that used its derived record
// refreshed our MANIFEST.md, the same record under the digest of the
// inputs as the refresh left them: what it holds is computed from the
// history, which the refresh did not change (its rows are the same), so
// the next quiet heartbeat uses it, and the bytes are those a heartbeat
// reading the history would keep. The digest is of the history git
// listed as the heartbeat opened with our MANIFEST.md's new bytes in it
// (gittree.WithBlob), not of the work tree as it now stands: that is
// what the record was computed from, so a file a person changed while
// the heartbeat ran (MANIFEST.md included) gives the next heartbeat
// another digest, and it reads the history. A record whose new digest
// git cannot take is left as it is: the next heartbeat then reads the
// history.
func (n *job) saveRefreshed(ctx context.Context) error {
	if n.quiet == nil || !n.refresh {
		return nil
	}
	tree, err := gittree.WithBlob(ctx, n.opts.Dir, n.quietTree, node.ManifestFile, n.snap.Manifest.Format())
	in, err := n.digestOf(tree, err)
	if err != nil {
		n.log.Info("no derived state kept", "reason", err.Error())
		return nil
	}
	d := *n.quiet
	d.Inputs = in
	return n.writeDerived(&d)
}

// writeDerived writes d to node.DerivedFile, through a temporary file and
// a rename, when its bytes changed.
func (n *job) writeDerived(d *derived) error {
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", node.DerivedFile, err)
	}
	p := filepath.Join(n.opts.Dir, filepath.FromSlash(node.DerivedFile))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", node.DerivedFile, err)
	}
	changed, err := atomicfile.WriteFileIfChanged(p, append(data, '\n'), 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", node.DerivedFile, err)
	}
	n.sum.Changed = n.sum.Changed || changed
	return nil
}

// quietSummary puts in the summary what the stages a quiet heartbeat
// skips would have put there: publishing's word on held files and the
// signed log.
func (n *job) quietSummary() {
	n.sum.Held = append(n.sum.Held, n.quiet.Held...)
	n.sum.LogUnsigned = n.quiet.LogUnsigned
}

// missingCopyPeers are the peers of which the copies' bounds select a
// trace the node holds no copy of: backfillCopies fetches them again
// when it reaches the peer.
func (n *job) missingCopyPeers() []string {
	set := map[string]bool{}
	for h := range n.copiesKept() {
		if t := n.ledger.Traces[h]; t.File != "" && n.snap.Copies.ByHash[h] == nil {
			set[t.AgentURL] = true
		}
	}
	return sortedKeys(set)
}

func sortedHashes(m map[manifest.Hash]bool) []manifest.Hash {
	out := make([]manifest.Hash, 0, len(m))
	for h, ok := range m {
		if ok {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k, ok := range m {
		if ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func hashSet(hs []manifest.Hash) map[manifest.Hash]bool {
	out := make(map[manifest.Hash]bool, len(hs))
	for _, h := range hs {
		out[h] = true
	}
	return out
}
