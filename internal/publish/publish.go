package publish

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
)

// Options says what to publish and as whom.
type Options struct {
	Dir   string // the node's directory; Plan takes a snapshot instead
	Agent string // our agent name, written as "agent:"
	URL   string // our base URL, written as "url:"
	Now   time.Time
	// Statuses maps the hash of each of our own traces to validated,
	// failed or contested, from SIGNAL resolution. A trace missing from
	// the map is pending.
	Statuses map[manifest.Hash]manifest.Status
	// RefreshUpdated sets "updated" to Now even when nothing changed, so
	// peers keep seeing the node as active (docs/protocol.md §10 presence).
	RefreshUpdated bool
	// Window and Chunk size MANIFEST.md and its archive pages (archive);
	// 0 means DefaultWindow and DefaultChunk. MaxBytes is the largest
	// MANIFEST.md to write, the node's limits.manifest_bytes; 0 means
	// node.MaxTopFileBytes.
	Window, Chunk int
	MaxBytes      int64
	// Add are rows of files that publishing does not find in the
	// published directories (a key statement of the signed log,
	// docs/protocol.md §3.4), given their seqs after the new files', in
	// order. Their Seq is ignored.
	Add []manifest.Entry
}

// Result says what publishing does.
type Result struct {
	// Manifest is the MANIFEST.md to write: Plan computes it, Publish
	// writes it.
	Manifest *manifest.Manifest
	NewFiles []manifest.Entry // rows published by this run, in seq order
	Held     []Held           // files left unpublished, with why
	Changed  bool             // Publish: MANIFEST.md was rewritten
	// Archived are the new archive pages Manifest links, to be written
	// before it (node.Snapshot.WriteManifest).
	Archived []node.Page
}

// Held is a file that publishing left unpublished until it is fixed:
// once published, a file can never change, so a draft or a file that does
// not parse waits.
type Held struct {
	File   string
	Reason string
}

// writeManifest is the one write Publish makes; tests replace it to
// simulate a crash.
var (
	writeManifest        = atomicfile.WriteFileIfChanged
	defaultWriteManifest = writeManifest
)

// Publish gives every new file of the node at o.Dir the next seq and
// regenerates MANIFEST.md: Plan over a snapshot, then the one write. It
// returns an *ImmutableError, writing nothing, when a published file was
// edited or deleted. A run with nothing new, no status change and no
// refresh leaves MANIFEST.md untouched, bytes and mtime.
func Publish(o Options) (*Result, error) {
	s, err := node.Open(o.Dir, node.Options{})
	if err != nil {
		return nil, err
	}
	res, err := Plan(s, o)
	if err != nil {
		return nil, err
	}
	if err := s.WritePages(res.Archived); err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	res.Changed, err = writeManifest(filepath.Join(o.Dir, node.ManifestFile), res.Manifest.Format(), 0o644)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	return res, nil
}

// Plan decides what publishing the snapshot's files gives: every file not
// yet listed gets the next seq, every row its status, and Result.Manifest
// is the MANIFEST.md to write. It writes nothing, and it returns an
// *ImmutableError when a published file was edited or deleted.
func Plan(s *node.Snapshot, o Options) (*Result, error) {
	if s.ManifestErr != nil {
		return nil, fmt.Errorf("%w; refusing to overwrite it", s.ManifestErr)
	}
	if s.ArchiveErr != nil {
		return nil, fmt.Errorf("%w; nothing was published", s.ArchiveErr)
	}
	old := s.Manifest
	if len(s.ManifestProblems) > 0 {
		return nil, manifestProblems(s.ManifestProblems)
	}
	bad, err := verifyRows(s, s.Rows())
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, &ImmutableError{Files: bad}
	}
	res := &Result{}
	next := nextSeq(old)
	m := &manifest.Manifest{Agent: o.Agent, URL: o.URL, Updated: old.Updated, Rules: declaredRules(s), Pages: PagesOf(o.URL), Archives: old.Archives}
	statusChanged := carryRows(m, old, o.Statuses)
	if err := addNewFiles(m, res, s, o, next); err != nil {
		return nil, err
	}
	addRows(m, res, o.Add, next+manifest.Seq(len(res.NewFiles)))
	m.Sequence = max(next-1, m.MaxSeq())
	res.Archived = archive(m, o)
	if len(res.NewFiles) > 0 || statusChanged || o.RefreshUpdated || m.Updated.IsZero() ||
		m.Agent != old.Agent || m.URL != old.URL || m.Rules != old.Rules || m.Pages != old.Pages {
		m.Updated = stamp(o.Now)
	}
	sort.SliceStable(m.Entries, func(i, j int) bool { return m.Entries[i].Seq > m.Entries[j].Seq })
	res.Manifest = m
	return res, nil
}

// declaredRules is the rule set the node's FOUNDERS.md declares, written
// as "rules:" so peers can tell which rules our statuses follow
// (docs/protocol.md §8.6); "" writes no line: a FOUNDERS.md without a
// rules line, or one that does not parse (SIGNAL reports that).
// PagesOf is the "pages:" line of the node at url: its site (internal/site)
// serves each trace's page beside its file, traces/x.md at traces/x.html.
// A node without a URL says nothing.
func PagesOf(url string) string {
	if url == "" {
		return ""
	}
	return url + manifest.PageStem + ".html"
}

func declaredRules(s *node.Snapshot) string {
	d, err := signal.ParseFounders(s.Founders)
	if err != nil || !d.RulesDeclared {
		return ""
	}
	return d.Rules
}

// manifestProblems refuses to regenerate a MANIFEST with rows the parser
// skipped: every row is a published file, and dropping one would publish
// its file again under a new seq.
func manifestProblems(problems []manifest.Problem) error {
	var b strings.Builder
	fmt.Fprintf(&b, "our own %s has %d line(s) that do not parse; fix them by hand, nothing was published", node.ManifestFile, len(problems))
	for _, p := range problems {
		fmt.Fprintf(&b, "\n  %s:%d: %s", node.ManifestFile, p.Line, p.Reason)
	}
	return errors.New(b.String())
}

// nextSeq is one above the highest seq ever given: the declared sequence
// counts too, since seqs that a MANIFEST lost (noobagent's gaps) were still
// given once and must never be given again.
func nextSeq(m *manifest.Manifest) manifest.Seq {
	top := max(m.Sequence, m.MaxSeq())
	if n := len(m.Archives); n > 0 {
		top = max(top, m.Archives[n-1].Last)
	}
	return top + 1
}

// Refresh returns m with its `updated:` time set to now and every other
// line as it is: what Plan gives with RefreshUpdated when nothing else
// changed. A heartbeat that knows nothing changed since its MANIFEST.md
// was planned (its derived record, docs/decisions.md "A quiet
// heartbeat") refreshes it so without reading the published files.
func Refresh(m *manifest.Manifest, now time.Time) *manifest.Manifest {
	c := *m
	c.Updated = stamp(now)
	return &c
}

// stamp is the form every time in MANIFEST.md takes: UTC, whole seconds, so
// that parsing and formatting again gives the same bytes.
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }
