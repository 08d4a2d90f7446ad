package relay

import (
	"bytes"
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
}

// Store is the Held of every relay under mesh-state/relays/
// (node.RelaysFile): a file per relay, and a file per agent a relay
// listed holding what each relay listed of it.
type Store struct {
	path  string
	relay map[string]*Held // by relay URL
	was   map[string][]byte
}

// agentFile is what the node holds of one agent from every relay, the
// file of the agent under mesh-state/relays/: an agent's file changes
// only when a relay lists it anew, so a heartbeat rewrites the files of
// the agents that changed, not every agent's.
type agentFile struct {
	Agent string `json:"agent"`
	// Listed and Pending are by relay URL (Held.Agents, Held.Pending).
	Listed  map[string]Listed `json:"listed,omitempty"`
	Pending map[string]string `json:"pending,omitempty"`
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
	s := &Store{path: path, relay: map[string]*Held{}, was: files}
	var agents []agentFile
	for name, data := range files {
		var probe struct {
			Relay *Held  `json:"relay"`
			Agent string `json:"agent"`
		}
		if err := json.Unmarshal(data, &probe); err != nil || (probe.Relay == nil || probe.Relay.URL == "") == (probe.Agent == "") {
			return nil, statefile.Corrupt(statefile.FilePath(path, name), data, fmt.Errorf("not a relay's or an agent's relayed state: %v", err))
		}
		if probe.Relay != nil {
			s.relay[probe.Relay.URL] = probe.Relay
			continue
		}
		var a agentFile
		if err := json.Unmarshal(data, &a); err != nil {
			return nil, statefile.Corrupt(statefile.FilePath(path, name), data, err)
		}
		agents = append(agents, a)
	}
	for _, a := range agents {
		for r, l := range a.Listed {
			if h, ok := s.relay[r]; ok {
				if h.Agents == nil {
					h.Agents = map[string]Listed{}
				}
				h.Agents[a.Agent] = l
			}
		}
		for r, cp := range a.Pending {
			if h, ok := s.relay[r]; ok {
				if h.Pending == nil {
					h.Pending = map[string]string{}
				}
				h.Pending[a.Agent] = cp
			}
		}
	}
	return s, nil
}

// Held returns the state of relay r, new when none is held or when it
// was held under another key: a new key starts the relay afresh, keeping
// only the faults forgiven, the history of its URL. Relays no longer
// configured are dropped at Save (Keep).
func (s *Store) Held(r Relay) *Held {
	h, ok := s.relay[r.URL]
	if !ok || h.Key != r.Key {
		fresh := &Held{URL: r.URL, Key: r.Key}
		if ok {
			fresh.Resolved = h.Resolved
		}
		h = fresh
		s.relay[r.URL] = h
	}
	return h
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
	f := *h.Fault
	f.Forgiven = now.UTC()
	resolved := append(slices.Clone(h.Resolved), f)
	resolved = resolved[max(0, len(resolved)-KeepResolved):]
	*h = Held{URL: r.URL, Key: r.Key, Resolved: resolved}
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
// learned nothing rewrites nothing.
func (s *Store) Save() (bool, error) {
	files := map[string][]byte{}
	agents := map[string]*agentFile{}
	for u, h := range s.relay {
		n := h.normalized()
		data, err := json.MarshalIndent(relayFile{Relay: n}, "", "  ")
		if err != nil {
			return false, fmt.Errorf("encode relay state of %s: %w", u, err)
		}
		files[statefile.PeerFileName(u)] = append(data, '\n')
		for a, l := range n.Agents {
			agentOf(agents, a).Listed[u] = l
		}
		for a, cp := range n.Pending {
			f := agentOf(agents, a)
			if f.Pending == nil {
				f.Pending = map[string]string{}
			}
			f.Pending[u] = cp
		}
	}
	for a, f := range agents {
		if len(f.Listed) == 0 {
			f.Listed = nil
		}
		data, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return false, fmt.Errorf("encode relayed state of %s: %w", a, err)
		}
		files[statefile.PeerFileName(a)] = append(data, '\n')
	}
	if same(files, s.was) {
		return false, nil
	}
	changed, err := statefile.Rewrite(s.path, files, s.was)
	if err != nil {
		return changed, fmt.Errorf("save relays' state: %w", err)
	}
	s.was = files
	return changed, nil
}

func agentOf(m map[string]*agentFile, agent string) *agentFile {
	f, ok := m[agent]
	if !ok {
		f = &agentFile{Agent: agent, Listed: map[string]Listed{}}
		m[agent] = f
	}
	return f
}

// normalized is h with its times in UTC and empty maps left out.
func (h *Held) normalized() *Held {
	n := *h
	n.Agents = make(map[string]Listed, len(h.Agents))
	for u, l := range h.Agents {
		l.Seen = l.Seen.UTC()
		n.Agents[u] = l
	}
	if len(n.Agents) == 0 {
		n.Agents = nil
	}
	if len(n.Pending) == 0 {
		n.Pending = nil
	}
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

func same(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}
