package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"

	"github.com/meshnode/meshnode/internal/statefile"
)

// State is the node's polling state, mesh-state/polling-cursors/.
type State struct {
	// Cursors holds one cursor per peer, keyed by the peer's trace URL.
	Cursors map[string]*Cursor `json:"cursors"`
	// SeenHashes maps each processed file hash to when it was first seen,
	// the first-seen times docs/protocol.md §6.4 asks for: a hash seen
	// from a peer by its seenKey (its fingerprint), one seen from no
	// peer in particular whole.
	SeenHashes map[manifest.Hash]time.Time `json:"seen_hashes"`
	// Hosts keeps what each host (host[:port]) asked of us across runs.
	Hosts map[string]*Host `json:"hosts,omitempty"`

	seenFrom map[manifest.Hash][]string // seenKey → URLs of the peers it was seen from, sorted
	// loaded are the cursors as their files hold them, normalized, by
	// URL: as Load read them or Save wrote them. Save encodes only a
	// cursor that differs from its, or whose file is stale: one Load
	// must rewrite although its cursor does not change (not written as
	// this code writes it, or holding the peer's seen hashes as older
	// nodes did).
	loaded map[string]Cursor
	stale  map[string]bool
	// onDisk are the bytes of each file as Load read them or Save wrote
	// them, by name, so Save rewrites only what changed without reading
	// the files again.
	onDisk map[string][]byte
	// shards keeps the shard files Load and the reads of seen hashes
	// read and Save wrote (statefile.Cache), so that a Save, which
	// rewrites a changed peer's whole shard, does not read it again.
	shards *statefile.Cache
	// legacy is set when Load found the single file of older nodes,
	// which the next Save replaces with the split directory.
	legacy bool

	// mu guards the seen hashes, which polls running at once read, and
	// read from disk, as they need them (seenfiles.go).
	mu   sync.Mutex
	path string // the path Load read, "" for a State from New
	// unread names the peers' seen files on disk not read yet;
	// seenOnDisk holds the bytes of those read or written, by name.
	unread     map[string]bool
	seenOnDisk map[string][]byte
	// seenOlder names the seen files read that an older node wrote, with
	// whole hashes.
	seenOlder map[string]bool
	// seenErr is the first seen file that could not be read: Save
	// refuses to write over a state it could not read whole.
	seenErr error
	// evictBefore is EvictSeen's cutoff, which a seen file read later
	// is held to as well.
	evictBefore time.Time
	// inline is set when a peer's file held its seen hashes, as older
	// nodes wrote it: then every seen file is read at load, so the
	// migration keeps the union of both.
	inline bool
}

// Host is the politeness a host asked for that outlives one heartbeat. Its
// fields mirror the fetcher's host state; this package only stores them.
type Host struct {
	CooldownUntil time.Time     `json:"cooldown_until,omitzero"`
	CrawlDelay    time.Duration `json:"crawl_delay,omitzero"`
	RobotsFetched time.Time     `json:"robots_fetched,omitzero"`
	Robots        string        `json:"robots,omitzero"`
}

// New returns an empty state.
func New() *State {
	return &State{Cursors: map[string]*Cursor{}, SeenHashes: map[manifest.Hash]time.Time{}, seenFrom: map[manifest.Hash][]string{}}
}

// Cursor returns the cursor of the peer at url, creating an empty one when
// the peer is new.
func (s *State) Cursor(url string) *Cursor {
	if s.Cursors == nil {
		s.Cursors = map[string]*Cursor{}
	}
	c := s.Cursors[url]
	if c == nil {
		c = &Cursor{}
		s.Cursors[url] = c
	}
	c.url = url
	return c
}

// Rename moves the cursor of the peer at from, and the hashes seen from
// it, to the URL to. It moves nothing, and reports false, when from has
// no cursor or to already has one.
func (s *State) Rename(from, to string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.Cursors[from]
	if _, taken := s.Cursors[to]; !ok || taken || from == to {
		return false
	}
	if err := s.ensureSeen(from); err != nil {
		s.fail(err)
	}
	if err := s.ensureSeen(to); err != nil {
		s.fail(err)
	}
	delete(s.Cursors, from)
	c.url = to
	s.Cursors[to] = c
	for h, urls := range s.seenFrom {
		if i := slices.Index(urls, from); i >= 0 {
			s.seenFrom[h] = slices.Delete(slices.Clone(urls), i, i+1)
			s.addSeenFrom(h, to)
		}
	}
	return true
}

// Load reads the state named by path (mesh-state/polling-cursors.json):
// the directory mesh-state/polling-cursors/, one file per peer with its
// cursor and the hashes seen from it, hosts.json and seen.json, and the
// single file older nodes kept at path, if it is still there (see
// statefile.Dir). Nothing on disk gives an empty state; a file that cannot be
// read or decoded gives a *statefile.CorruptError and is left untouched. An older
// node's shape, where seen_hashes is a list, is read too: those hashes
// count as first seen now.
func Load(path string) (*State, error) {
	return load(path, time.Now)
}

// LoadAll is Load that reads every peer's seen hashes as well, for a
// check of the whole state (meshnode doctor): Load reads a peer's only
// when a poll asks about them.
func LoadAll(path string) (*State, error) {
	s, err := Load(path)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readAllSeen(); err != nil {
		return nil, err
	}
	return s, nil
}

func load(path string, now func() time.Time) (*State, error) {
	shards := new(statefile.Cache)
	legacy, files, err := shards.Read(path)
	if err != nil {
		return nil, err
	}
	s := New()
	if legacy != nil {
		if s, err = decode(legacy, now().UTC().Truncate(time.Second)); err != nil {
			return nil, statefile.Corrupt(path, legacy, err)
		}
	}
	for _, name := range sortedNames(files) {
		if err := s.decodeSplit(name, files[name]); err != nil {
			return nil, statefile.Corrupt(statefile.FilePath(path, name), files[name], err)
		}
	}
	s.onDisk, s.shards = files, shards
	if err := s.listSeen(path); err != nil {
		return nil, err
	}
	if s.inline {
		if err := s.readAllSeen(); err != nil {
			return nil, err
		}
	}
	s.legacy = legacy != nil
	s.loaded = make(map[string]Cursor, len(s.Cursors))
	for url, c := range s.Cursors {
		n := c.normalized()
		s.loaded[url] = *n
		if !sameCursor(c, n) {
			s.markStale(url)
		}
	}
	return s, nil
}

// markStale records that the file of the peer at url must be written
// though its cursor does not change.
func (s *State) markStale(url string) {
	if s.stale == nil {
		s.stale = map[string]bool{}
	}
	s.stale[url] = true
}

// fileState is State as read from disk: seen_hashes may be a list.
type fileState struct {
	Cursors    map[string]*Cursor `json:"cursors"`
	SeenHashes json.RawMessage    `json:"seen_hashes"`
	Hosts      map[string]*Host   `json:"hosts"`
}

func decode(data []byte, now time.Time) (*State, error) {
	var f fileState
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	s := New()
	for url, c := range f.Cursors {
		if writable(url, c) {
			c.url = url
			s.Cursors[url] = c
		}
	}
	s.Hosts = f.Hosts
	seen, err := decodeSeen(f.SeenHashes, now)
	if err != nil {
		return nil, err
	}
	s.SeenHashes = seen
	return s, nil
}

// writable reports whether a cursor can be kept in a peer file: one with
// no cursor or no URL names no peer, and a peer file without them is
// refused on load, so an older node's file that holds one (FuzzLoad found
// {"Cursors":{"":{}}}) drops it on migration rather than write a file the
// next heartbeat stops on.
func writable(url string, c *Cursor) bool {
	return url != "" && c != nil
}

// decodeSeen reads seen_hashes as a map of first-seen times, or as seed
// 000's first sketch, a plain list, giving each hash the time now.
func decodeSeen(raw json.RawMessage, now time.Time) (map[manifest.Hash]time.Time, error) {
	out := map[manifest.Hash]time.Time{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return out, nil
	}
	if raw[0] == '[' {
		var list []manifest.Hash
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("seen_hashes: %w", err)
		}
		for _, h := range list {
			out[h] = now
		}
		return out, nil
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("seen_hashes: %w", err)
	}
	return out, nil
}

// Save writes the state named by path as one file per peer, hosts.json
// and seen.json (each atomically, each only when its bytes change), the
// seen files of the peers whose hashes were read, and removes the single
// file of older nodes; it reports whether anything on disk changed. A
// peer whose cursor differs from the one loaded only in its poll times
// (last_polled, last_success) keeps its file unless the stored
// last_polled is before timesBefore, so a heartbeat that found nothing
// new writes nothing; the zero time never writes poll times alone. It
// writes nothing when a seen file could not be read.
func (s *State) Save(path string, timesBefore time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seenErr != nil {
		return false, fmt.Errorf("save state: %w", s.seenErr)
	}
	if s.orphaned() {
		if err := s.readAllSeen(); err != nil {
			return false, fmt.Errorf("save state: %w", err)
		}
	}
	out, err := s.files(timesBefore)
	if err != nil {
		return false, err
	}
	seen, gone, err := s.seenFiles(out.owned)
	if err != nil {
		return false, err
	}
	// The seen files go first and the files they replace last, so a
	// crash between leaves hashes in two places, which Load joins, never
	// in none.
	changed, err := s.writeSeen(path, seen)
	if err != nil {
		return changed, err
	}
	cursors, err := s.writeCursors(path, out)
	changed = changed || cursors
	if err != nil {
		return changed, err
	}
	removed, err := s.shards.Update(SeenPath(path), nil, nil, gone)
	changed = changed || removed
	if err != nil {
		return changed, err
	}
	if s.seenOnDisk != nil {
		s.seenOnDisk = seen
	}
	return changed, nil
}

// writeCursors writes the cursors' files out holds: for a State Load
// read, those that changed, removing those that are gone, and each
// written cursor is then the one its file holds; for one from New, or
// whose Load found the single file of older nodes, every file, and no
// other. The caller holds s.mu.
func (s *State) writeCursors(path string, out cursorFiles) (bool, error) {
	if s.onDisk == nil || s.legacy {
		for name := range out.kept {
			out.write[name] = s.onDisk[name]
		}
		changed, err := s.shards.Rewrite(path, out.write, s.onDisk)
		if err == nil && s.onDisk != nil {
			s.onDisk, s.legacy = out.write, false
			s.remember(out.cursors)
		}
		return changed, err
	}
	changed, err := s.shards.Update(path, out.write, s.onDisk, out.gone)
	if err != nil {
		return changed, err
	}
	for name, data := range out.write {
		s.onDisk[name] = data
	}
	for _, name := range out.gone {
		delete(s.onDisk, name)
	}
	s.remember(out.cursors)
	return changed, nil
}

// remember records the cursors just written as those their files hold.
// The caller holds s.mu.
func (s *State) remember(written map[string]writtenCursor) {
	if s.loaded == nil {
		return
	}
	for _, w := range written {
		s.loaded[w.url] = *w.cursor
		delete(s.stale, w.url)
	}
}

// writeSeen writes the seen files: those that changed, for a State Load
// read; all of them, and no other, for one from New. The caller holds
// s.mu.
func (s *State) writeSeen(path string, seen map[string][]byte) (bool, error) {
	if s.seenOnDisk == nil {
		return s.shards.Rewrite(SeenPath(path), seen, nil)
	}
	return s.shards.Update(SeenPath(path), seen, s.seenOnDisk, nil)
}

// fail keeps err as the first seen file that could not be read. The
// caller holds s.mu.
func (s *State) fail(err error) {
	if s.seenErr == nil {
		s.seenErr = err
	}
}

// Err reports the first seen file that could not be read, which Save
// refuses to write over; a poll asking about that peer's hashes was told
// they were seen, so nothing was fetched twice.
func (s *State) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seenErr
}

// utc returns t in UTC without its monotonic reading; the zero time stays
// zero so omitzero leaves it out.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Round(0)
}

// SortedURLs returns the cursor keys in order, for stable output.
func (s *State) SortedURLs() []string {
	urls := make([]string, 0, len(s.Cursors))
	for u := range s.Cursors {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	return urls
}
