package node

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/trace"
)

// Snapshot is one read of a node's directory: our MANIFEST.md parsed, our
// published files with their bytes, FOUNDERS.md, the ledger and the
// cursors, each read once when the snapshot is opened. The stages of a
// command pass it along instead of reading the disk again, and write
// through it, so what one stage wrote the next one sees.
//
// A snapshot is not a lock: a command that writes takes Lock first. The
// queue is the exception that stays on disk (Queue): it is shared with
// people's commands and other processes, and every batch of operations on
// it is a compare-and-swap under its own lock (internal/queue).
type Snapshot struct {
	// Dir is the node's directory.
	Dir string
	// Manifest is our MANIFEST.md: empty when the node has none. When it
	// does not parse, ManifestErr says why and Manifest is empty.
	Manifest         *manifest.Manifest
	ManifestProblems []manifest.Problem // rows the parser skipped
	ManifestErr      error
	// ManifestData is MANIFEST.md's bytes as read, nil when absent, for
	// commands that copy it byte for byte (the site). ManifestLink says it
	// is a symbolic link: the heartbeat reads through it and writes a file
	// in its place, the site refuses to publish it.
	ManifestData []byte
	ManifestLink bool
	// Archive holds the archive pages MANIFEST.md links, oldest first;
	// when one cannot be read as linked, ArchiveErr says why and Archive
	// is empty.
	Archive    []Page
	ArchiveErr error
	// Founders is FOUNDERS.md as it is on disk, nil when absent; a file
	// that is not a regular one, or is too large, is FoundersErr.
	Founders    []byte
	FoundersErr error
	// Agents are the agents our AGENTS.md lists, with the lines it
	// skipped; AgentsErr says why it could not be read (a symbolic link,
	// a file over MaxTopFileBytes), and then it lists none.
	Agents         []roster.Agent
	AgentsProblems []roster.Problem
	AgentsErr      error
	AgentsData     []byte // AGENTS.md's bytes as read, nil when absent
	// Ledger and Cursors are the node's state (internal/ledger,
	// internal/state); Queue is its validation queue.
	Ledger  *ledger.Ledger
	Cursors *state.State
	Queue   *queue.File
	// Copies are the bounded copies of peers' traces the site republishes
	// (internal/copies).
	Copies *copies.Copies

	mu          sync.Mutex
	files       []File // publishable files of PublishedDirs, by path
	held        []Held
	traces      map[string]*parsedTrace
	validations map[string]parsedValidation // Validation's, by path
	summaries   bool                        // Options.SealedSummaries
	writing     map[string]bool             // paths WriteFile is writing now
	unsynced    bool                        // WriteFileUnsynced wrote since the last Sync
	writes      int                         // files and manifests written through the snapshot
}

// File is one of the node's publishable files (Publishable) in traces/,
// validations/ or disputes/.
type File struct {
	Path string        // slash path relative to the node: "traces/x.md"
	Data []byte        // nil when Err is set
	Hash manifest.Hash // sha256 of Data, as MANIFEST.md writes it
	Err  error         // ErrTooLarge: not read, and never published
}

// Held is an entry of a published directory that is not a publishable
// file (a symbolic link, another kind of file, a name the node cannot
// publish), with why; hidden files and subdirectories are not listed.
type Held struct {
	Path   string
	Reason string
	Link   bool // a symbolic link
}

type parsedTrace struct {
	t   *trace.Trace
	err error
}

// Options say how to open a snapshot.
type Options struct {
	// Now is the queue's clock (leases, pruning); nil is time.Now.
	Now func() time.Time
	// Own reads only what the node itself publishes: MANIFEST.md, its
	// archive pages and the published directories. Nothing the heartbeat
	// learned from peers is read (the ledger, the cursors, the copies,
	// AGENTS.md, FOUNDERS.md, the queue): those fields stay empty. It is
	// how `meshnode sign`, the step that holds the log's key, opens the
	// node.
	Own bool
	// Deferred leaves the node's history unread until LoadHistory: the
	// published files, our MANIFEST.md's archive pages, the ledger and
	// the copies. The heartbeat opens
	// so, and reads them only when its derived state does not hold what
	// it needs of them (docs/decisions.md, "A quiet heartbeat").
	Deferred bool
	// SealedSummaries reads the ledger's sealed records from their
	// segments' summaries (ledger.LoadCompact): every field but a trace's
	// title and citations, which only the site and `meshnode explain`
	// read. The heartbeat opens so; a command that shows a sealed trace's
	// title must not.
	SealedSummaries bool
}

// readHook and openedHook, when set (tests only), are told every node
// file a snapshot reads, as a slash path relative to the node, and every
// snapshot once it is open (a deferred one, once LoadHistory read its
// history).
var (
	readHook   func(rel string)
	openedHook func(*Snapshot)
)

func noteRead(rel string) {
	if readHook != nil {
		readHook(rel)
	}
}

// Open reads the node at dir. A node that never ran has empty parts; a
// state file that does not decode is a *statefile.CorruptError, and a
// published directory that is a symbolic link is refused, since
// publishing it would publish its target.
func Open(dir string, o Options) (*Snapshot, error) {
	s := &Snapshot{Dir: dir, traces: map[string]*parsedTrace{}, validations: map[string]parsedValidation{}, summaries: o.SealedSummaries}
	if err := s.readManifest(); err != nil {
		return nil, err
	}
	if !o.Deferred {
		s.readArchive()
	}
	if !o.Own {
		noteRead(FoundersFile)
		s.Founders, s.FoundersErr = ReadFounders(dir)
	}
	if !o.Deferred {
		if err := s.readPublished(); err != nil {
			return nil, err
		}
	}
	if o.Own {
		if openedHook != nil {
			openedHook(s)
		}
		return s, nil
	}
	noteRead(AgentsFile)
	s.AgentsData, s.AgentsErr = readAgents(dir)
	s.Agents, s.AgentsProblems = roster.Parse(s.AgentsData)
	var err error
	if !o.Deferred {
		if err := s.readState(); err != nil {
			return nil, err
		}
	}
	noteRead(CursorsFile)
	if s.Cursors, err = state.Load(s.path(CursorsFile)); err != nil {
		return nil, err
	}
	s.Queue = queue.Open(s.path(QueueFile))
	if o.Now != nil {
		s.Queue.Now = o.Now
	}
	if openedHook != nil && !o.Deferred {
		openedHook(s)
	}
	return s, nil
}

// LoadHistory reads what Open with Deferred left unread: the published
// files, the archive pages, the ledger and the copies, once; a snapshot opened whole has
// them already and reads nothing.
func (s *Snapshot) LoadHistory() error {
	if s.Ledger != nil {
		return nil
	}
	s.readArchive()
	if err := s.readPublished(); err != nil {
		return err
	}
	if err := s.readState(); err != nil {
		return err
	}
	if openedHook != nil {
		openedHook(s)
	}
	return nil
}

// Deferred reports whether the snapshot's history is still unread.
func (s *Snapshot) Deferred() bool { return s.Ledger == nil }

// readState reads the ledger and the copies.
func (s *Snapshot) readState() error {
	noteRead(LedgerFile)
	load := ledger.Load
	if s.summaries {
		load = ledger.LoadCompact
	}
	led, err := load(s.path(LedgerFile))
	if err != nil {
		return err
	}
	noteRead(CopiesFile)
	cp, err := copies.Load(s.path(CopiesFile))
	if err != nil {
		return err
	}
	s.Ledger, s.Copies = led, cp
	return nil
}

func (s *Snapshot) path(rel string) string { return filepath.Join(s.Dir, filepath.FromSlash(rel)) }

// readManifest reads our MANIFEST.md. It is not read through ReadFile: a
// symbolic link there is replaced by the file at the next write, so it is
// only noted (ManifestLink).
func (s *Snapshot) readManifest() error {
	s.Manifest = &manifest.Manifest{}
	noteRead(ManifestFile)
	fi, err := os.Lstat(s.path(ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", ManifestFile, err)
	}
	s.ManifestLink = fi.Mode()&fs.ModeSymlink != 0
	data, err := readOwnManifest(s.path(ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // a dangling link
	}
	if err != nil {
		return err
	}
	s.ManifestData = data
	m, problems, err := manifest.ParseOwn(data)
	if err != nil {
		s.ManifestErr = fmt.Errorf("our own %s does not parse: %w", ManifestFile, err)
		return nil
	}
	s.Manifest, s.ManifestProblems = m, problems
	return nil
}

// MaxOwnManifestBytes bounds our own MANIFEST.md as read. The heartbeat
// keeps it under 2 MB by archiving (publish.DefaultWindow); the rest lets
// a node that grew past manifest.MaxRows before it archived (about 400,000
// rows) read it once, to archive it.
const MaxOwnManifestBytes = 64 << 20

// readOwnManifest reads the file at p, through a link, when it is a
// regular file of at most MaxOwnManifestBytes: a link to a pipe or a
// device must not hang or exhaust the node.
func readOwnManifest(p string) ([]byte, error) {
	// Stat before opening: opening a pipe waits for a writer.
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: %w", ManifestFile, ErrNotRegular)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxOwnManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", ManifestFile, err)
	}
	if len(data) > MaxOwnManifestBytes {
		return nil, tooLarge(ManifestFile, int64(len(data)), MaxOwnManifestBytes)
	}
	return data, nil
}

// MaxFoundersBytes bounds FOUNDERS.md; a mesh has a handful of founders.
const MaxFoundersBytes = 256 << 10

// ReadFounders reads dir's FOUNDERS.md: nil for a node without one. A
// symbolic link is refused (the file is published), and so is a file over
// MaxFoundersBytes.
func ReadFounders(dir string) ([]byte, error) {
	data, err := ReadFile(dir, FoundersFile, MaxFoundersBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, ErrSymlink), errors.Is(err, ErrNotRegular):
		return nil, fmt.Errorf("refusing to read %s (%w): the file is published, so a symlink is never followed; replace it with the file itself", FoundersFile, err)
	case errors.Is(err, ErrTooLarge):
		return nil, fmt.Errorf("read %s: larger than %d bytes", FoundersFile, MaxFoundersBytes)
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", FoundersFile, err)
	}
	return data, nil
}

// readPublished reads every publishable file of the published
// directories and notes every other entry with why it is held back.
func (s *Snapshot) readPublished() error {
	for _, d := range PublishedDirs {
		if err := s.readDir(d); err != nil {
			return err
		}
	}
	return nil
}

// readDir reads the published directory d through one descriptor opened
// on it (publishedDir): a year of validations is tens of thousands of
// files, and a root and a walk of the path for each doubled the calls to
// the kernel.
func (s *Snapshot) readDir(d string) error {
	if _, err := Stat(s.Dir, d); errors.Is(err, ErrSymlink) {
		return fmt.Errorf("refusing to publish %w; make it a directory", err)
	} else if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	dir, err := openPublishedDir(s.path(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", d, err)
	}
	defer dir.close()
	entries, err := dir.list()
	if err != nil {
		return fmt.Errorf("list %s: %w", d, err)
	}
	for _, e := range entries {
		if err := s.readEntry(dir, d, e); err != nil {
			return err
		}
	}
	return nil
}

// readEntry reads the entry e of the published directory d, opened as
// dir. Its listing said it is a regular file, and what is opened is
// checked again: an entry replaced by a link or a pipe since is not read.
func (s *Snapshot) readEntry(dir *publishedDir, d string, e fs.DirEntry) error {
	rel := path.Join(d, e.Name())
	switch {
	case Publishable(e):
	case Hidden(e.Name()) || e.IsDir():
		return nil
	default:
		s.held = append(s.held, Held{Path: rel, Reason: unpublishable(e), Link: e.Type()&fs.ModeSymlink != 0})
		return nil
	}
	noteRead(rel)
	data, err := dir.read(e.Name(), rel, MaxFileBytes)
	if errors.Is(err, ErrTooLarge) {
		s.files = append(s.files, File{Path: rel, Err: err})
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", rel, err)
	}
	s.files = append(s.files, File{Path: rel, Data: data, Hash: manifest.HashBytes(data)})
	return nil
}

// unpublishable says why a directory entry is not published.
func unpublishable(e fs.DirEntry) string {
	if e.Type()&fs.ModeSymlink != 0 {
		return "a symbolic link: the node publishes only regular files; replace it with the file itself"
	}
	if !e.Type().IsRegular() {
		return "not a regular file"
	}
	return fmt.Sprintf("not a publishable name: %v; rename it", CheckName(e.Name()))
}
