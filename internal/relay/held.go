package relay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
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

// Held is what a node holds of one relay it reads (mesh-state/relays/):
// the relay's last checkpoint accepted, how far its entries are read, the
// latest verified checkpoint of each agent it listed, and a fault with
// its evidence once it served what no honest relay serves.
type Held struct {
	URL string `json:"url"`
	// Key is the relay's verifier key, as mesh.yaml gives it; a new key
	// starts the relay afresh.
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
	Agents map[string]Listed `json:"agents,omitempty"`
	// Pending are, by agent URL, relayed checkpoints not verified yet:
	// the agent was not pinned, or its pinned key did not verify them. The
	// agent is polled directly, and the checkpoint judged after that poll
	// (a first contact pins the key; the agent may have rotated it).
	Pending map[string]string `json:"pending,omitempty"`
	// Fault, once set, stops the node from reading the relay.
	Fault *Fault `json:"fault,omitempty"`
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
}

// Store is the Held of every relay, a file per relay under
// mesh-state/relays/ (node.RelaysFile).
type Store struct {
	path  string
	relay map[string]*Held // by relay URL
	was   map[string][]byte
}

// LoadStore reads the relays' state kept at path; none is a new store.
func LoadStore(path string) (*Store, error) {
	_, files, err := statefile.Read(path)
	if err != nil {
		return nil, err
	}
	s := &Store{path: path, relay: map[string]*Held{}, was: files}
	for name, data := range files {
		var h Held
		if err := json.Unmarshal(data, &h); err != nil || h.URL == "" {
			return nil, statefile.Corrupt(statefile.Dir(path)+"/"+name, data, fmt.Errorf("not a relay's state: %v", err))
		}
		s.relay[h.URL] = &h
	}
	return s, nil
}

// Held returns the state of relay r, new when none is held or when it
// was held under another key; relays no longer configured are dropped at
// Save (Keep).
func (s *Store) Held(r Relay) *Held {
	h, ok := s.relay[r.URL]
	if !ok || h.Key != r.Key {
		h = &Held{URL: r.URL, Key: r.Key}
		s.relay[r.URL] = h
	}
	return h
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

// Save writes every relay's file whose bytes changed, and reports whether
// one did: a read that learned nothing rewrites nothing.
func (s *Store) Save() (bool, error) {
	files := make(map[string][]byte, len(s.relay))
	for u, h := range s.relay {
		data, err := json.MarshalIndent(h.normalized(), "", "  ")
		if err != nil {
			return false, fmt.Errorf("encode relay state of %s: %w", u, err)
		}
		files[statefile.PeerFileName(u)] = append(data, '\n')
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
		f := *h.Fault
		f.At = f.At.UTC()
		n.Fault = &f
	}
	return &n
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
