package node

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/meshnode/meshnode/internal/atomicfile"
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
	// Ledger and Cursors are the node's state (internal/ledger,
	// internal/state); Queue is its validation queue.
	Ledger  *ledger.Ledger
	Cursors *state.State
	Queue   *queue.File

	mu       sync.Mutex
	files    []File // publishable files of PublishedDirs, by path
	held     []Held
	traces   map[string]*parsedTrace
	writing  map[string]bool // paths WriteFile is writing now
	unsynced bool            // WriteFileUnsynced wrote since the last Sync
}

// File is one of the node's publishable files (Publishable) in traces/,
// validations/ or disputes/.
type File struct {
	Path string // slash path relative to the node: "traces/x.md"
	Data []byte // nil when Err is set
	Hash string // sha256 of Data, as MANIFEST.md writes it
	Err  error  // ErrTooLarge: not read, and never published
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
}

// readHook and openedHook, when set (tests only), are told every node
// file a snapshot reads, as a slash path relative to the node, and every
// snapshot once it is open.
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
	s := &Snapshot{Dir: dir, traces: map[string]*parsedTrace{}}
	if err := s.readManifest(); err != nil {
		return nil, err
	}
	noteRead(FoundersFile)
	s.Founders, s.FoundersErr = ReadFounders(dir)
	if err := s.readPublished(); err != nil {
		return nil, err
	}
	noteRead(AgentsFile)
	agents, err := readAgents(dir)
	s.AgentsErr = err
	s.Agents, s.AgentsProblems = roster.Parse(agents)
	noteRead(LedgerFile)
	if s.Ledger, err = ledger.Load(s.path(LedgerFile)); err != nil {
		return nil, err
	}
	noteRead(CursorsFile)
	if s.Cursors, err = state.Load(s.path(CursorsFile)); err != nil {
		return nil, err
	}
	s.Queue = queue.Open(s.path(QueueFile))
	if o.Now != nil {
		s.Queue.Now = o.Now
	}
	if openedHook != nil {
		openedHook(s)
	}
	return s, nil
}

func (s *Snapshot) path(rel string) string { return filepath.Join(s.Dir, filepath.FromSlash(rel)) }

// readManifest reads our MANIFEST.md. It is not read through ReadFile: a
// symbolic link there is replaced by the file at the next write.
func (s *Snapshot) readManifest() error {
	s.Manifest = &manifest.Manifest{}
	noteRead(ManifestFile)
	data, err := os.ReadFile(s.path(ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", ManifestFile, err)
	}
	m, problems, err := manifest.Parse(data)
	if err != nil {
		s.ManifestErr = fmt.Errorf("our own %s does not parse: %w", ManifestFile, err)
		return nil
	}
	s.Manifest, s.ManifestProblems = m, problems
	return nil
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
		return nil, fmt.Errorf("read %s: not a regular file (a symlink is refused: the file is published)", FoundersFile)
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
		if _, err := Stat(s.Dir, d); errors.Is(err, ErrSymlink) {
			return fmt.Errorf("refusing to publish %w; make it a directory", err)
		}
		entries, err := os.ReadDir(s.path(d))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("list %s: %w", d, err)
		}
		for _, e := range entries {
			if err := s.readEntry(d, e); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Snapshot) readEntry(dir string, e fs.DirEntry) error {
	rel := path.Join(dir, e.Name())
	switch {
	case Publishable(e):
	case Hidden(e.Name()) || e.IsDir():
		return nil
	default:
		s.held = append(s.held, Held{Path: rel, Reason: unpublishable(e), Link: e.Type()&fs.ModeSymlink != 0})
		return nil
	}
	noteRead(rel)
	data, err := ReadFile(s.Dir, rel, MaxFileBytes)
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

// Files returns the node's publishable files of one published directory
// (TracesDir, ValidationsDir, DisputesDir), or of all three for "", in seq
// order: directory by directory as PublishedDirs lists them, each by name.
func (s *Snapshot) Files(dir string) []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []File
	for _, f := range s.files {
		if dir == "" || path.Dir(f.Path) == dir {
			out = append(out, f)
		}
	}
	return out
}

// Held returns the entries of the published directories that are not
// publishable, with why.
func (s *Snapshot) Held() []Held { return append([]Held(nil), s.held...) }

// File returns the publishable file at rel, if the node has it.
func (s *Snapshot) File(rel string) (File, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.find(rel)
	if !ok {
		return File{}, false
	}
	return s.files[i], true
}

// find returns where rel is, or would go, in s.files; s.mu is held.
func (s *Snapshot) find(rel string) (int, bool) {
	key := fileOrder(rel)
	i := sort.Search(len(s.files), func(i int) bool { return !lessOrder(fileOrder(s.files[i].Path), key) })
	return i, i < len(s.files) && s.files[i].Path == rel
}

// fileOrder is a file's place in seq order: its directory's index in
// PublishedDirs, then its name.
func fileOrder(rel string) [2]string {
	d := path.Dir(rel)
	for i, p := range PublishedDirs {
		if d == p {
			return [2]string{string(rune('0' + i)), path.Base(rel)}
		}
	}
	return [2]string{"9", rel}
}

func lessOrder(a, b [2]string) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// OwnHashes returns the hashes of our own traces, published or not.
func (s *Snapshot) OwnHashes() map[string]bool {
	out := map[string]bool{}
	for _, f := range s.Files(TracesDir) {
		if f.Err == nil {
			out[f.Hash] = true
		}
	}
	return out
}

// Trace returns our trace file at rel parsed, parsing it once however
// often it is asked for; nil with an error when it is not a trace.
func (s *Snapshot) Trace(rel string) (*trace.Trace, error) {
	f, ok := s.File(rel)
	if !ok {
		return nil, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	}
	if f.Err != nil {
		return nil, f.Err
	}
	s.mu.Lock()
	p, ok := s.traces[rel]
	s.mu.Unlock()
	if !ok {
		p = &parsedTrace{}
		p.t, p.err = trace.Parse(f.Data)
		s.mu.Lock()
		s.traces[rel] = p
		s.mu.Unlock()
	}
	return p.t, p.err
}

// WriteFile writes one of the node's publishable files (a validation, a
// dispute) atomically and durably, and adds it to the snapshot. It never
// overwrites: a file already there, in the snapshot or on disk, or being
// written by another goroutine, is an error wrapping fs.ErrExist. Writes
// of different files run concurrently, so their fsyncs overlap.
func (s *Snapshot) WriteFile(rel string, data []byte) error {
	return s.writeFile(rel, data, atomicfile.WriteFile)
}

// WriteFileUnsynced is WriteFile without the fsyncs: the file is whole
// for every reader at once, and durable against a power loss once Sync
// returns. A stage that writes many files (the heartbeat's validations)
// calls Sync once before it records them as written.
func (s *Snapshot) WriteFileUnsynced(rel string, data []byte) error {
	if err := s.writeFile(rel, data, atomicfile.WriteFileUnsynced); err != nil {
		return err
	}
	s.mu.Lock()
	s.unsynced = true
	s.mu.Unlock()
	return nil
}

// Sync makes every file WriteFileUnsynced wrote durable, with one flush of
// the node's file system.
func (s *Snapshot) Sync() error {
	s.mu.Lock()
	pending := s.unsynced
	s.unsynced = false
	s.mu.Unlock()
	if !pending {
		return nil
	}
	return atomicfile.SyncFS(s.Dir)
}

func (s *Snapshot) writeFile(rel string, data []byte, write func(string, []byte, os.FileMode) error) error {
	if PublishedDir(rel) == "" {
		return fmt.Errorf("write %s: not in a published directory", rel)
	}
	if err := CheckName(path.Base(rel)); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	if err := s.reserve(rel); err != nil {
		return err
	}
	defer s.release(rel)
	// A person may have written it since the snapshot was taken.
	if _, err := os.Lstat(s.path(rel)); err == nil {
		return fmt.Errorf("write %s: %w", rel, fs.ErrExist)
	}
	if err := write(s.path(rel), data, 0o644); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i, _ := s.find(rel)
	s.files = append(s.files, File{})
	copy(s.files[i+1:], s.files[i:])
	s.files[i] = File{Path: rel, Data: data, Hash: manifest.HashBytes(data)}
	return nil
}

// reserve claims rel for one writer, failing when the snapshot holds it
// or another writer has it.
func (s *Snapshot) reserve(rel string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.find(rel); ok || s.writing[rel] {
		return fmt.Errorf("write %s: %w", rel, fs.ErrExist)
	}
	if s.writing == nil {
		s.writing = map[string]bool{}
	}
	s.writing[rel] = true
	return nil
}

func (s *Snapshot) release(rel string) {
	s.mu.Lock()
	delete(s.writing, rel)
	s.mu.Unlock()
}

// WriteManifest replaces our MANIFEST.md with m, formatted, when its bytes
// differ, and reports whether they did.
func (s *Snapshot) WriteManifest(m *manifest.Manifest) (bool, error) {
	changed, err := atomicfile.WriteFileIfChanged(s.path(ManifestFile), m.Format(), 0o644)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", ManifestFile, err)
	}
	s.Manifest, s.ManifestProblems, s.ManifestErr = m, nil, nil
	return changed, nil
}

// SaveLedger writes the ledger, a file per peer, and reports whether
// anything on disk changed.
func (s *Snapshot) SaveLedger() (bool, error) {
	changed, err := s.Ledger.Save(s.path(LedgerFile))
	if err != nil {
		return changed, fmt.Errorf("save ledger: %w", err)
	}
	return changed, nil
}

// SaveCursors writes the cursors, a file per peer; poll times older than
// timesBefore are written, newer ones wait (state.State.Save).
func (s *Snapshot) SaveCursors(timesBefore time.Time) (bool, error) {
	changed, err := s.Cursors.Save(s.path(CursorsFile), timesBefore)
	if err != nil {
		return changed, fmt.Errorf("save cursors: %w", err)
	}
	return changed, nil
}
