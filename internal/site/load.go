package site

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
)

// Files and folders of a node that the site publishes or reads; their
// names and rules belong to internal/node.
const (
	manifestFile   = node.ManifestFile
	identityFile   = node.IdentityFile
	agentsFile     = node.AgentsFile
	tracesDir      = node.TracesDir
	validationsDir = node.ValidationsDir
	disputesDir    = node.DisputesDir
	cursorsFile    = node.CursorsFile
	ledgerFile     = node.LedgerFile
)

// Load reads the node at dir into a Node, from local files only. Missing
// files give empty parts (a new node has no validations); unreadable ones
// are errors. now is the time presence is judged at.
func Load(dir string, now time.Time) (*Node, error) {
	n := &Node{Dir: dir, Now: now}
	snap, err := node.Open(dir, node.Options{})
	if err != nil {
		return nil, err
	}
	n.AgentsSkipped = snap.AgentsProblems
	if err := loadManifest(n, snap); err != nil {
		return nil, err
	}
	if err := loadConfig(dir, n); err != nil {
		return nil, err
	}
	identity, err := loadIdentity(dir, n)
	if err != nil {
		return nil, err
	}
	if err := loadPublished(n, snap, identity); err != nil {
		return nil, err
	}
	loadTraces(n, snap)
	l := snap.Ledger
	// SIGNAL reads the snapshot, whose traces were parsed once above, and
	// runs on the other core while the rest of the model is put together.
	var rep signal.Report
	var sg errgroup.Group
	sg.Go(func() error {
		in, err := signal.FromSnapshot(snap, n.Agent, n.URL)
		if err != nil {
			return err
		}
		rep = signal.Compute(in)
		return nil
	})
	loadGiven(n, snap)
	loadDisputes(n, l)
	if err := loadPeers(n, snap, now); err != nil {
		return nil, err
	}
	attachLedger(n, l, snap.Copies)
	if err := sg.Wait(); err != nil {
		return nil, fmt.Errorf("compute SIGNAL: %w", err)
	}
	applySignal(n, rep)
	return n, nil
}

// readOptional reads one of the node's top-level files the snapshot does
// not hold (IDENTITY.md), returning nil for a missing one. A symbolic link
// is refused, never followed: the site would publish its target.
func readOptional(dir, name string) ([]byte, error) {
	b, err := node.ReadFile(dir, name, node.MaxTopFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, node.ErrSymlink) {
		return nil, fmt.Errorf("refusing to publish %w: replace it with the file itself", err)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}

// loadManifest takes our MANIFEST.md from the snapshot: read and parsed
// once, by node.Open.
func loadManifest(n *Node, snap *node.Snapshot) error {
	switch data := snap.ManifestData; {
	case snap.ManifestLink:
		return fmt.Errorf("refusing to publish %s, which is %w: replace it with the file itself", manifestFile, node.ErrSymlink)
	case data == nil:
		return nil
	case int64(len(data)) > node.MaxTopFileBytes:
		return fmt.Errorf("%s is %w: %d bytes, more than the %d allowed", manifestFile, node.ErrTooLarge, len(data), node.MaxTopFileBytes)
	case config.IsTemplate(data):
		return fmt.Errorf("%s is %w", manifestFile, ErrTemplate)
	case snap.ManifestErr != nil:
		return snap.ManifestErr
	case snap.ArchiveErr != nil:
		return snap.ArchiveErr
	}
	m := snap.Manifest
	n.Agent, n.URL, n.Updated, n.Sequence = m.Agent, m.URL, m.Updated.UTC(), m.Sequence
	return nil
}

// loadIdentity reads IDENTITY.md, the one top-level file the snapshot
// does not hold, and returns its bytes for publishing.
func loadIdentity(dir string, n *Node) ([]byte, error) {
	data, err := readOptional(dir, identityFile)
	if err != nil {
		return nil, err
	}
	n.Identity = parseIdentity(data)
	for i := range n.Identity {
		n.Identity[i].Unfilled = node.IdentityUnfilled(n.Identity[i].Value)
	}
	if n.Agent == "" {
		for _, f := range n.Identity {
			if strings.EqualFold(f.Name, "name") && !f.Unfilled {
				n.Agent = f.Value
			}
		}
	}
	return data, nil
}

// loadPublished collects every published file, to be copied byte for
// byte: the top-level files as the snapshot read them (and IDENTITY.md),
// MANIFEST.md's archive pages, the signed log, then our traces,
// validations and disputes.
func loadPublished(n *Node, snap *node.Snapshot, identity []byte) error {
	if snap.AgentsErr != nil {
		return snap.AgentsErr
	}
	if snap.FoundersErr != nil {
		return snap.FoundersErr
	}
	for _, f := range []File{
		{Path: manifestFile, Data: snap.ManifestData}, {Path: identityFile, Data: identity},
		{Path: agentsFile, Data: snap.AgentsData}, {Path: node.FoundersFile, Data: snap.Founders},
	} {
		if f.Data != nil {
			n.Files = append(n.Files, f)
		}
	}
	for _, p := range snap.Archive {
		n.Files = append(n.Files, File{Path: p.Link.File, Data: p.Data})
	}
	// The signed log beside MANIFEST.md, where peers read it
	// (docs/protocol.md §3.4), byte for byte.
	logFiles, err := node.ReadLog(snap.Dir)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(logFiles)) {
		n.Files = append(n.Files, File{Path: path.Join(node.LogDir, name), Data: logFiles[name]})
	}
	for _, h := range snap.Held() {
		if h.Link {
			return fmt.Errorf("refusing to publish %s: %w; replace it with the file itself", h.Path, node.ErrSymlink)
		}
	}
	// Only publishable files (node.Publishable: regular files with a
	// publishable name, directly in a published directory) reach the
	// site, so a traces/x.html, an .svg or a file in a subdirectory never
	// does; a file over the size peers read is held back, as publish does.
	for _, f := range snap.Files("") {
		if f.Err == nil {
			n.Files = append(n.Files, File{Path: f.Path, Data: f.Data, Hash: f.Hash})
		}
	}
	return nil
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
