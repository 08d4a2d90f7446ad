package relay

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// Fault kinds: what a relay did that no honest relay does.
const (
	FaultSignature = "bad_signature" // its checkpoint does not verify with its key
	FaultFork      = "fork"          // two of its checkpoints no consistency proof joins
	FaultAltered   = "altered"       // an entry bundle or tile that does not hash to its signed root
	FaultBadEntry  = "bad_entry"     // a signed entry that is not one
	FaultForged    = "forged"        // an agent's checkpoint the agent's pinned key does not verify
)

// PendingUnpinned is how long a relayed checkpoint of an agent the node
// has not pinned stays pending (Settle). Only the node's own first contact
// pins an agent, at its first poll with news a day or more after the
// last look for its log (docs/decisions.md, "Reading a peer's signed
// log"), and an agent a relay lists anew has news: a week is several such
// looks. Past it, the agent is taken to be one the node does not read on
// a log, and the checkpoint, which decides nothing for an agent without
// a pin, is dropped; a pinned agent's next listing brings its checkpoint
// again (docs/decisions.md, "Relays").
const PendingUnpinned = 7 * 24 * time.Hour

// KeepResolved is how many forgiven faults a relay's state keeps, the
// newest: an older one's evidence stays in the node's history.
const KeepResolved = 16

// Held is what a node holds of one relay it reads (mesh-state/relays/):
// the relay's last checkpoint accepted, how far its entries are read, the
// latest verified checkpoint of each agent it listed, a fault with its
// evidence once it served what no honest relay serves, and the faults an
// operator forgave.
type Held struct {
	URL string `json:"url"`
	// Key is the relay's verifier key, as mesh.yaml gives it; a new key
	// starts the relay afresh, its Resolved kept.
	Key string `json:"key"`
	// Checkpoint is the relay's last signed checkpoint accepted, verbatim;
	// Size and Root (base64) its tree.
	Checkpoint string `json:"checkpoint,omitempty"`
	Size       int64  `json:"size,omitempty"`
	Root       string `json:"root,omitempty"`
	// Read is how many of its entries were read (at most Size).
	Read int64 `json:"read,omitempty"`
	// ETag and LastModified are its checkpoint's validators.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	// Agents are, by agent URL, the newest agent checkpoint it listed
	// that the agent's pinned key verified.
	Agents map[string]Listed `json:"-"`
	// Pending are, by agent URL, relayed checkpoints not verified yet:
	// the agent was not pinned, or its pinned key did not verify them. The
	// agent is polled directly, and the checkpoint judged after that poll
	// (a first contact pins the key; the agent may have rotated it).
	Pending map[string]string `json:"-"`
	// PendingSeen are, by agent URL, when the node first read the
	// checkpoint it holds pending of the agent: one of an agent still
	// without a pinned key is dropped PendingUnpinned later (Settle).
	PendingSeen map[string]time.Time `json:"-"`
	// Fault, once set, stops the node from reading the relay.
	Fault *Fault `json:"fault,omitempty"`
	// Resolved are the faults an operator forgave (Store.Forgive), oldest
	// first, with their evidence: the last KeepResolved.
	Resolved []Fault `json:"resolved,omitempty"`
}

// Listed is an agent's checkpoint as a relay listed it: its tree, and
// when the node first read it there.
type Listed struct {
	Size int64     `json:"size"`
	Root string    `json:"root"`
	Seen time.Time `json:"seen"`
}

// Fault is a relay's misdeed and its evidence: anyone can check the
// checkpoints and entry with the relay's and the agent's keys.
type Fault struct {
	Kind   string    `json:"kind"`
	Detail string    `json:"detail"`
	At     time.Time `json:"at"`
	// Checkpoints are the relay's signed checkpoints involved, verbatim.
	Checkpoints []string `json:"checkpoints,omitempty"`
	// Agent and Entry are, for a forged or bad entry, the agent and the
	// relay's entry, verbatim.
	Agent string `json:"agent,omitempty"`
	Entry string `json:"entry,omitempty"`
	// Forgiven is, among Held.Resolved, when an operator forgave it.
	Forgiven time.Time `json:"forgiven,omitzero"`
	// Key is, among Held.Resolved, the relay's key for a fault still open
	// when the operator gave the relay a new key (no Forgiven time): its
	// evidence is the history of the relay's URL, signed under that key.
	Key string `json:"key,omitempty"`
}

// Store is the Held of every relay under mesh-state/relays/
// (node.RelaysFile): a file per relay, and a file per agent a relay
// listed holding what each relay listed of it.
type Store struct {
	path  string
	relay map[string]*Held // by relay URL
	// was are the files as read or last written, by name; relayFiles
	// names the relays' among them, and agents holds what each agent's
	// says, by agent URL, so Save encodes only the agents whose listings
	// changed.
	was        map[string][]byte
	relayFiles map[string]bool
	agents     map[string]agentFile
	// misnamed are agents' files read under a name that is not their
	// agent's, by agent URL, which Save removes.
	misnamed map[string][]string
}

// agentFile is what the node holds of one agent from every relay, the
// file of the agent under mesh-state/relays/: an agent's file changes
// only when a relay lists it anew, so a heartbeat rewrites the files of
// the agents that changed, not every agent's.
type agentFile struct {
	Agent string `json:"agent"`
	// Listed, Pending and PendingSeen are by relay URL (Held.Agents,
	// Held.Pending, Held.PendingSeen). A pending checkpoint without a time
	// (an older node's file) is dropped at the first Settle that finds its
	// agent unpinned.
	Listed      map[string]Listed    `json:"listed,omitempty"`
	Pending     map[string]string    `json:"pending,omitempty"`
	PendingSeen map[string]time.Time `json:"pending_seen,omitempty"`
}

// relayFile is a relay's own file: its Held without the agents.
type relayFile struct {
	Relay *Held `json:"relay"`
}

// LoadStore reads the relays' state kept at path; none is a new store.
func LoadStore(path string) (*Store, error) {
	_, files, err := statefile.Read(path)
	if err != nil {
		return nil, err
	}
	s := &Store{path: path, relay: map[string]*Held{}, was: files, relayFiles: map[string]bool{}, agents: map[string]agentFile{},
		misnamed: map[string][]string{}}
	// An agent's own file wins over a copy under another name (a file a
	// person copied, a naming rule that changed), whatever the order the
	// files are read in; between copies, the first name wins.
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		var f struct {
			Relay *Held `json:"relay"`
			agentFile
		}
		if err := json.Unmarshal(data, &f); err != nil || (f.Relay == nil || f.Relay.URL == "") == (f.Agent == "") {
			return nil, statefile.Corrupt(statefile.FilePath(path, name), data, fmt.Errorf("not a relay's or an agent's relayed state: %v", err))
		}
		if f.Relay != nil {
			s.relay[f.Relay.URL] = f.Relay
			s.relayFiles[name] = true
			continue
		}
		if name != statefile.PeerFileName(f.Agent) {
			s.misnamed[f.Agent] = append(s.misnamed[f.Agent], name)
			if _, ok := s.agents[f.Agent]; ok {
				continue
			}
		}
		s.agents[f.Agent] = f.agentFile
	}
	for agent, a := range s.agents {
		for r, l := range a.Listed {
			if h, ok := s.relay[r]; ok {
				if h.Agents == nil {
					h.Agents = map[string]Listed{}
				}
				h.Agents[agent] = l
			}
		}
		for r, cp := range a.Pending {
			if h, ok := s.relay[r]; ok {
				h.hold(agent, cp, a.PendingSeen[r])
			}
		}
	}
	return s, nil
}

// Held returns the state of relay r, new when none is held or when it
// was held under another key: a new key starts the relay afresh, keeping
// only its faults, the history of its URL: those forgiven, and the one
// still open, among Resolved with the key it was found under. Relays no
// longer configured are dropped at Save (Keep).
func (s *Store) Held(r Relay) *Held {
	h, ok := s.relay[r.URL]
	if !ok || h.Key != r.Key {
		fresh := &Held{URL: r.URL, Key: r.Key}
		if ok {
			fresh.Resolved = resolve(h.Resolved, h.Fault, func(f *Fault) { f.Key = h.Key })
		}
		h = fresh
		s.relay[r.URL] = h
	}
	return h
}

// resolve returns resolved with f appended, as mark leaves it, and no
// more than the last KeepResolved; resolved itself when f is nil.
func resolve(resolved []Fault, f *Fault, mark func(*Fault)) []Fault {
	if f == nil {
		return resolved
	}
	kept := *f
	mark(&kept)
	out := append(slices.Clone(resolved), kept)
	return out[max(0, len(out)-KeepResolved):]
}

// Forgive drops what the node holds of relay r, faulted, so that its next
// read starts from the beginning, and keeps its fault, forgiven at now,
// among Resolved with its evidence. It returns the fault, nil (changing
// nothing) when r is not held faulted under its key.
func (s *Store) Forgive(r Relay, now time.Time) *Fault {
	h, ok := s.relay[r.URL]
	if !ok || h.Key != r.Key || h.Fault == nil {
		return nil
	}
	resolved := resolve(h.Resolved, h.Fault, func(f *Fault) { f.Forgiven = now.UTC() })
	*h = Held{URL: r.URL, Key: r.Key, Resolved: resolved}
	f := resolved[len(resolved)-1]
	return &f
}

// Keep forgets every relay not among rs.
func (s *Store) Keep(rs []Relay) {
	want := map[string]bool{}
	for _, r := range rs {
		want[r.URL] = true
	}
	maps.DeleteFunc(s.relay, func(u string, _ *Held) bool { return !want[u] })
}

// KeepAgents forgets, of every relay held, its listing and pending
// checkpoint of each agent keep refuses (one the node no longer polls: a
// peer forgotten, an agent taken out of AGENTS.md), and returns how many
// agents it forgot of any. A reader passes over the new entries of such
// an agent (Reader.Known), so what a relay said of it before would stay
// for ever, read by nothing; Save removes the agent's file once no relay
// lists it. An agent polled again waits for a relay's next listing of it,
// polled on its own schedule meanwhile (docs/decisions.md, "Relays").
func (s *Store) KeepAgents(keep func(agent string) bool) int {
	gone := map[string]bool{}
	for _, h := range s.relay {
		for a := range h.Agents {
			if !keep(a) {
				delete(h.Agents, a)
				gone[a] = true
			}
		}
		for a := range h.Pending {
			if !keep(a) {
				h.release(a)
				gone[a] = true
			}
		}
	}
	return len(gone)
}

// All returns the held relays, by URL.
func (s *Store) All() []*Held {
	out := make([]*Held, 0, len(s.relay))
	for _, h := range s.relay {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

// Save writes every file whose bytes changed (a file per relay, a file
// per agent a relay listed), and reports whether one did: a read that
// learned nothing rewrites nothing. Only the files of the agents whose
// listings changed since the store was loaded or last saved are encoded,
// so a save follows what the relays listed anew, not the mesh's size.
// An agent whose file would take a relay's name (statefile.PeerFileName:
// 32 bits of a URL's sha256, which whoever runs both can search for) gets
// none: written, it replaced the relay's state and fault; its listings
// are kept nowhere, so the agent is polled on its own schedule.
func (s *Store) Save() (bool, error) {
	files := map[string][]byte{}
	for u, h := range s.relay {
		data, err := json.MarshalIndent(relayFile{Relay: h.normalized()}, "", "  ")
		if err != nil {
			return false, fmt.Errorf("encode relay state of %s: %w", u, err)
		}
		files[statefile.PeerFileName(u)] = append(data, '\n')
	}
	agents := s.changedAgents()
	for a := range agents {
		if _, relays := files[statefile.PeerFileName(a)]; relays {
			delete(agents, a)
		}
	}
	var gone []string
	for a, f := range agents {
		if f == nil {
			gone = append(gone, statefile.PeerFileName(a))
			continue
		}
		data, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return false, fmt.Errorf("encode relayed state of %s: %w", a, err)
		}
		files[statefile.PeerFileName(a)] = append(data, '\n')
	}
	for name := range s.relayFiles {
		if _, ok := files[name]; !ok {
			gone = append(gone, name)
		}
	}
	for _, names := range s.misnamed {
		gone = append(gone, names...)
	}
	sort.Strings(gone)
	changed, err := statefile.Update(s.path, files, s.was, gone)
	if err != nil {
		return changed, fmt.Errorf("save relays' state: %w", err)
	}
	s.saved(files, agents, gone)
	return changed, nil
}

// changedAgents returns, by agent URL, the file of each agent whose
// listings differ from what its file holds, normalized; nil for one that
// no relay lists any more. Times are compared by instant: a file whose
// times carry an offset (an older or hand-edited one) is rewritten, in
// UTC, only when something in it changes.
func (s *Store) changedAgents() map[string]*agentFile {
	changed := map[string]bool{}
	for a := range s.misnamed {
		changed[a] = true
	}
	for u, h := range s.relay {
		for a, l := range h.Agents {
			if was, ok := s.agents[a].Listed[u]; !ok || was.Size != l.Size || was.Root != l.Root || !was.Seen.Equal(l.Seen) {
				changed[a] = true
			}
		}
		for a, cp := range h.Pending {
			f := s.agents[a]
			seen, wasSeen := h.PendingSeen[a], f.PendingSeen[u]
			if was, ok := f.Pending[u]; !ok || was != cp || !wasSeen.Equal(seen) {
				changed[a] = true
			}
		}
	}
	for a, f := range s.agents {
		for u := range f.Listed {
			if _, ok := s.relay[u].listed(a); !ok {
				changed[a] = true
			}
		}
		for u := range f.Pending {
			if _, ok := s.relay[u].pending(a); !ok {
				changed[a] = true
			}
		}
	}
	out := make(map[string]*agentFile, len(changed))
	for a := range changed {
		out[a] = s.agentFileOf(a)
	}
	return out
}

// listed is what h lists of agent; a nil h lists nothing.
func (h *Held) listed(agent string) (Listed, bool) {
	if h == nil {
		return Listed{}, false
	}
	l, ok := h.Agents[agent]
	return l, ok
}

// hold holds cp pending of agent, first read at seen: the same
// checkpoint listed again keeps the time it was first read.
func (h *Held) hold(agent, cp string, seen time.Time) {
	if was, ok := h.Pending[agent]; ok && was == cp {
		return
	}
	if h.Pending == nil {
		h.Pending = map[string]string{}
	}
	h.Pending[agent] = cp
	if seen.IsZero() {
		delete(h.PendingSeen, agent)
		return
	}
	if h.PendingSeen == nil {
		h.PendingSeen = map[string]time.Time{}
	}
	h.PendingSeen[agent] = seen.UTC()
}

// release drops what h holds pending of agent.
func (h *Held) release(agent string) {
	delete(h.Pending, agent)
	delete(h.PendingSeen, agent)
}

// pending is the checkpoint h holds pending of agent; a nil h holds
// none.
func (h *Held) pending(agent string) (string, bool) {
	if h == nil {
		return "", false
	}
	cp, ok := h.Pending[agent]
	return cp, ok
}

// agentFileOf is the file of agent as the relays held list it, nil when
// none lists it.
func (s *Store) agentFileOf(agent string) *agentFile {
	f := &agentFile{Agent: agent}
	for u, h := range s.relay {
		if l, ok := h.Agents[agent]; ok {
			if f.Listed == nil {
				f.Listed = map[string]Listed{}
			}
			l.Seen = l.Seen.UTC()
			f.Listed[u] = l
		}
		if cp, ok := h.Pending[agent]; ok {
			if f.Pending == nil {
				f.Pending = map[string]string{}
			}
			f.Pending[u] = cp
			if seen := h.PendingSeen[agent]; !seen.IsZero() {
				if f.PendingSeen == nil {
					f.PendingSeen = map[string]time.Time{}
				}
				f.PendingSeen[u] = seen.UTC()
			}
		}
	}
	if f.Listed == nil && f.Pending == nil {
		return nil
	}
	return f
}

// saved records what Save wrote as what the files hold.
func (s *Store) saved(files map[string][]byte, agents map[string]*agentFile, gone []string) {
	for name, data := range files {
		s.was[name] = data
	}
	for _, name := range gone {
		delete(s.was, name)
		delete(s.relayFiles, name)
	}
	for u := range s.relay {
		s.relayFiles[statefile.PeerFileName(u)] = true
	}
	clear(s.misnamed)
	for a, f := range agents {
		if f == nil {
			delete(s.agents, a)
		} else {
			s.agents[a] = *f
		}
	}
}

// normalized is h as its relay's file holds it: its times in UTC,
// without the agents, which are in the agents' files.
func (h *Held) normalized() *Held {
	n := *h
	n.Agents, n.Pending, n.PendingSeen = nil, nil, nil
	if h.Fault != nil {
		f := h.Fault.normalized()
		n.Fault = &f
	}
	n.Resolved = make([]Fault, len(h.Resolved))
	for i, f := range h.Resolved {
		n.Resolved[i] = f.normalized()
	}
	if len(n.Resolved) == 0 {
		n.Resolved = nil
	}
	return &n
}

// normalized is f with its times in UTC.
func (f Fault) normalized() Fault {
	f.At, f.Forgiven = f.At.UTC(), f.Forgiven.UTC()
	return f
}
