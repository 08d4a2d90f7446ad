package logpin

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// KeepAccepted is how many accepted checkpoints a pin remembers: a cache
// serving a copy of one of them is staleness, recognised without a proof.
const KeepAccepted = 16

// KeepResolved is how many alarms re-pinned past a pin keeps, the
// newest, as a relay keeps its forgiven faults: an older one's evidence
// stays in the node's history.
const KeepResolved = 16

// Pin is what the node holds of one peer's log: the key pinned on first
// contact, the last checkpoint accepted, and an alarm with its evidence
// when the log contradicted itself (docs/decisions.md, "Reading a peer's
// signed log").
type Pin struct {
	URL string `json:"url"`
	// Key is the verifier key pinned on first contact; "" after a re-pin,
	// until the next poll pins the key IDENTITY.md then publishes.
	Key string `json:"key,omitempty"`
	// Checkpoint is the last signed checkpoint accepted, byte for byte.
	Checkpoint string `json:"checkpoint,omitempty"`
	// LastSeq is the seq of the last entry handed on: the accepted
	// tree's last entry once it was read whole.
	LastSeq manifest.Seq `json:"last_seq,omitempty"`
	// Behind is how many entries of the accepted tree are not read yet:
	// a big log is read in chunks over several polls (docs/decisions.md,
	// "Reading a peer's signed log"), 0 once it was read whole.
	Behind int64 `json:"behind,omitempty"`
	// From and After are where the last read began: the index of its
	// first entry and the seq of the entry before it (0 at the start). A
	// poll whose cursor still wants entries of that read reads again from
	// there.
	From  int64        `json:"from,omitempty"`
	After manifest.Seq `json:"after,omitempty"`
	// Checked is, while Behind, the index below which key statements were
	// checked or trusted on first contact: those above it are checked as
	// their chunk is read.
	Checked int64 `json:"checked,omitempty"`
	// Accepted are the trees of the last checkpoints accepted, oldest
	// first, at most KeepAccepted.
	Accepted []Tree `json:"accepted,omitempty"`
	// Tiles are the rightmost hash tile of each level from 1 up of the
	// tree accepted, verified against its root, by path under log/
	// (base64): the next poll derives the tiles of the grown tree from
	// them and the new bundles instead of fetching them.
	Tiles map[string]string `json:"tiles,omitempty"`
	// ETag and LastModified are the checkpoint's validators.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	// Repin is set by an operator's re-pin: the next poll pins afresh.
	Repin bool `json:"repin,omitempty"`
	// Alarm, when set, refuses the peer's new entries.
	Alarm *Alarm `json:"alarm,omitempty"`
	// Rotations are the key rotations followed, oldest first, each with
	// the statement the key pinned before signed.
	Rotations []Rotation `json:"rotations,omitempty"`
	// Resolved are the alarms operators re-pinned past, oldest first,
	// kept as evidence: the last KeepResolved.
	Resolved []Alarm `json:"resolved,omitempty"`
	// Mirrors are the mirrors the peer's IDENTITY.md listed when its key
	// was pinned (base URLs): read, and verified like the origin, while
	// the origin is down.
	Mirrors []string `json:"mirrors,omitempty"`
	// MirrorSince is when the node began reading the log from a mirror
	// alone, the origin down; zero once the origin answers.
	MirrorSince time.Time `json:"mirror_since,omitzero"`
	// RelayedSince is when the node first accepted a checkpoint a relay
	// listed, instead of the peer's own, since it last read the peer's own
	// from its origin; zero once it does. A relayed checkpoint is taken so
	// only within relays.direct_poll of it (docs/decisions.md, "Relays").
	RelayedSince time.Time `json:"relayed_since,omitzero"`
	// MirrorFault is the last time a mirror served bytes the log refuses
	// (altered, or signed by no key of the peer's), with its evidence:
	// the mirror's fault, not the peer's, so no alarm.
	MirrorFault *Alarm `json:"mirror_fault,omitempty"`
}

// Tree is a checkpoint's size and root (base64), as accepted.
type Tree struct {
	Size int64  `json:"size"`
	Root string `json:"root"`
}

// Alarm kinds: what a log did that no honest publisher does.
const (
	AlarmFork         = "fork"          // two signed checkpoints no consistency proof joins
	AlarmSignature    = "bad_signature" // a checkpoint the pinned key's signature does not verify
	AlarmKeyChange    = "key_change"    // a checkpoint signed by another key, without a rotation
	AlarmRestart      = "restart"       // the log restarted under a new key: only an operator may accept it
	AlarmAlteredEntry = "altered_entry" // an entry bundle that does not hash to the signed tree
	AlarmAlteredTile  = "altered_tile"  // a hash tile that does not hash to the signed root
	AlarmBadEntry     = "bad_entry"     // a signed entry that is not one (unparsable, seqs not rising)
	AlarmLogGone      = "log_gone"      // the checkpoint is no longer served: no downgrade
)

// Alarm is a contradiction in a peer's log and its evidence.
type Alarm struct {
	Kind   string    `json:"kind"`
	Detail string    `json:"detail"`
	At     time.Time `json:"at"`
	// Checkpoints are the signed checkpoints involved, byte for byte: the
	// one accepted before, then the one refused. Anyone can check them
	// with the pinned key: for a fork, both verify and no proof joins them.
	Checkpoints []string `json:"checkpoints,omitempty"`
	// Files are the refused bytes' paths and hashes (a tile, a bundle).
	Files []Evidence `json:"files,omitempty"`
	// Statement is the key statement refused, byte for byte.
	Statement string `json:"statement,omitempty"`
	// Key and Size are, for a restart, the new key and the size from
	// which it signs: what an operator checks with the peer's owner.
	Key  string `json:"key,omitempty"`
	Size int64  `json:"size,omitempty"`
	// Resolved is when an operator re-pinned past it.
	Resolved time.Time `json:"resolved,omitzero"`
}

// Evidence names refused bytes by path and hash.
type Evidence struct {
	Path   string        `json:"path"`
	SHA256 manifest.Hash `json:"sha256"`
}

// Rotation is a change of a peer's log key that the node followed: the
// statement, signed by the key pinned before, is kept byte for byte as
// the evidence of why the pin moved (docs/protocol.md §3.4).
type Rotation struct {
	// Size is the tree size from which Key signs the log.
	Size     int64  `json:"size"`
	Previous string `json:"previous"`
	Key      string `json:"key"`
	// Statement is the signed rotation statement, as served.
	Statement string `json:"statement"`
}

// Pins are the pins of every peer, a file per peer under
// mesh-state/log-pins/ (node.LogPinsFile). Polls of different peers use
// them concurrently.
type Pins struct {
	path string
	mu   sync.Mutex
	pins map[string]*Pin   // by peer URL
	was  map[string][]byte // the files as read, by name
	// put are the peers whose pin was stored since Load or the last
	// Save, the only pins Save encodes; misnamed are files read under
	// a name that is not their peer's, which Save replaces.
	put      map[string]bool
	misnamed []string
	// gone are the files of pins moved to another URL (Rename) or
	// forgotten (Keep), which Save removes once the pins' new files are
	// written.
	gone []string
}

// Load reads the pins kept at path (node.LogPinsFile); none is no pin.
func Load(path string) (*Pins, error) {
	_, files, err := statefile.Read(path)
	if err != nil {
		return nil, err
	}
	ps := &Pins{path: path, pins: map[string]*Pin{}, was: files, put: map[string]bool{}}
	// A peer's own file wins over a copy of its pin under another name
	// (a file a person copied, a naming rule that changed), whatever the
	// order the files are read in; between copies, the first name wins.
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		var p Pin
		if err := json.Unmarshal(data, &p); err != nil || p.URL == "" {
			return nil, statefile.Corrupt(statefile.FilePath(path, name), data, fmt.Errorf("not a log pin: %v", err))
		}
		own := name == statefile.PeerFileName(p.URL)
		if !own {
			ps.misnamed = append(ps.misnamed, name)
			if _, ok := ps.pins[p.URL]; ok {
				continue
			}
			ps.put[p.URL] = true
		} else {
			delete(ps.put, p.URL)
		}
		ps.pins[p.URL] = &p
	}
	return ps, nil
}

// Get returns a copy of the pin of the peer at url, nil when none.
func (ps *Pins) Get(url string) *Pin {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.pins[url]
	if !ok {
		return nil
	}
	c := *p
	return &c
}

// Latest returns the tree last accepted for the peer at url under a
// pinned key, whether there is one (a pin with a key and an accepted
// tree), and whether its pin holds an alarm, without copying the pin:
// the relays' view asks it of every agent at every heartbeat.
func (ps *Pins) Latest(url string) (t Tree, ok, alarm bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p := ps.pins[url]
	if p == nil || p.Key == "" || len(p.Accepted) == 0 {
		return Tree{}, false, p != nil && p.Alarm != nil
	}
	return p.Accepted[len(p.Accepted)-1], true, p.Alarm != nil
}

// Put stores a copy of p as the pin of the peer at p.URL.
func (ps *Pins) Put(p *Pin) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	c := *p
	ps.pins[p.URL] = &c
	ps.put[p.URL] = true
}

// Alarms returns the pins that hold an alarm, by URL.
func (ps *Pins) Alarms() []*Pin {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []*Pin
	for _, p := range ps.pins {
		if p.Alarm != nil {
			c := *p
			out = append(out, &c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

// Repin forgets the key and checkpoint pinned for the peer at url and
// clears its alarm, kept among Resolved, so that its next poll pins the
// key its IDENTITY.md then publishes: the only way past an alarm. It
// returns the pin as it was, nil when the peer has none.
func (ps *Pins) Repin(url string, now time.Time) *Pin {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.pins[url]
	if !ok {
		return nil
	}
	before := *p
	resolved := slices.Clone(p.Resolved)
	if p.Alarm != nil {
		a := *p.Alarm
		a.Resolved = now.UTC()
		resolved = append(resolved, a)
		resolved = resolved[max(0, len(resolved)-KeepResolved):]
	}
	ps.pins[url] = &Pin{URL: url, Repin: true, Resolved: resolved, Rotations: p.Rotations}
	ps.put[url] = true
	return &before
}

// Rename moves the pin of the peer at from to the URL to, where the same
// agent is now (docs/decisions.md, "Names"), replacing any pin to held,
// and reports whether from had one. The pin keeps its key, checkpoint,
// alarm and evidence: a log is its key's, whose name (the origin it was
// made under) a reader never compares with the URL it reads the log from
// (docs/protocol.md §6.9), so the agent's log read at the new URL goes on
// from the checkpoint accepted, and another key there without a rotation
// is refused as at the old URL. Its mirrors leave out the new URL, the
// agent's own now.
func (ps *Pins) Rename(from, to string) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.pins[from]
	if !ok || from == to {
		return false
	}
	c := *p
	c.URL = to
	c.Mirrors = slices.DeleteFunc(slices.Clone(p.Mirrors), func(m string) bool { return m == to })
	if len(c.Mirrors) == 0 {
		c.Mirrors = nil
	}
	delete(ps.pins, from)
	delete(ps.put, from)
	ps.pins[to] = &c
	ps.put[to] = true
	ps.removeFile(from)
	return true
}

// Keep forgets the pin of every peer whose URL keep refuses (a peer the
// node forgot, whose cursor is gone: docs/decisions.md, "Reading a peer's
// signed log"), and returns their URLs, sorted. Save removes their files.
func (ps *Pins) Keep(keep func(url string) bool) []string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []string
	for url := range ps.pins {
		if !keep(url) {
			out = append(out, url)
		}
	}
	sort.Strings(out)
	for _, url := range out {
		delete(ps.pins, url)
		delete(ps.put, url)
		ps.removeFile(url)
	}
	return out
}

// removeFile makes Save remove the file of the pin of url, if one was
// read or written. The caller holds ps.mu.
func (ps *Pins) removeFile(url string) {
	if name := statefile.PeerFileName(url); ps.was[name] != nil {
		ps.gone = append(ps.gone, name)
	}
}

// Save writes every pin whose bytes changed, and reports whether a file
// changed: a poll that learned nothing rewrites nothing. Only the pins
// stored since Load or the last Save are encoded, so a save follows the
// peers polled, not the mesh's size. The files of pins that moved to
// another name (a misnamed file, a pin Rename moved) are removed only
// once the new ones are written, so a crash between keeps a pin under
// both names, never under none; so are those of pins Keep forgot.
func (ps *Pins) Save() (bool, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	files := make(map[string][]byte, len(ps.put))
	for url := range ps.put {
		data, err := json.MarshalIndent(ps.pins[url].normalized(), "", "  ")
		if err != nil {
			return false, fmt.Errorf("encode log pin of %s: %w", url, err)
		}
		files[statefile.PeerFileName(url)] = append(data, '\n')
	}
	changed, err := statefile.Update(ps.path, files, ps.was, nil)
	if err != nil {
		return changed, fmt.Errorf("save log pins: %w", err)
	}
	for name, data := range files {
		ps.was[name] = data
	}
	gone := slices.DeleteFunc(append(slices.Clone(ps.misnamed), ps.gone...), func(name string) bool { return files[name] != nil })
	removed, err := statefile.Update(ps.path, nil, ps.was, gone)
	if err != nil {
		return changed || removed, fmt.Errorf("save log pins: %w", err)
	}
	for _, name := range gone {
		delete(ps.was, name)
	}
	ps.put, ps.misnamed, ps.gone = map[string]bool{}, nil, nil
	return changed || removed, nil
}

// normalized is p with its times in UTC.
func (p *Pin) normalized() *Pin {
	n := *p
	if p.Alarm != nil {
		a := *p.Alarm
		a.At = a.At.UTC()
		n.Alarm = &a
	}
	if p.MirrorFault != nil {
		a := *p.MirrorFault
		a.At = a.At.UTC()
		n.MirrorFault = &a
	}
	n.MirrorSince = p.MirrorSince.UTC()
	n.Resolved = slices.Clone(p.Resolved)
	if len(n.Tiles) == 0 {
		n.Tiles = nil
	}
	for i := range n.Resolved {
		n.Resolved[i].At, n.Resolved[i].Resolved = n.Resolved[i].At.UTC(), n.Resolved[i].Resolved.UTC()
	}
	return &n
}
