package signal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/meshnode/meshnode/internal/ledger"
)

// Pools keeps the pools of epochs already computed, each under the key of
// the files it was computed from (poolKeys), for the computations that
// follow: Compute and Assignments of one heartbeat share them, and a node
// keeps them between heartbeats (MarshalPools, ReadPools), so that it
// computes only the pools of the epochs whose files changed. It is only an
// optimisation: a pool is taken from it only under the key of exactly the
// files it would be computed from, so every result is the one computed
// without it (docs/decisions.md, Assignment: "The pool cache"). A nil
// *Pools keeps nothing. Its methods are safe for concurrent use.
type Pools struct {
	mu      sync.Mutex
	entries map[int64]poolEntry
	used    map[int64]bool // epochs looked up or stored since made or read
	// computed counts the pools computed because no entry held them.
	computed int
}

// poolEntry is one epoch's pool and the key of the files it was
// computed from.
type poolEntry struct {
	key     poolKey
	members []member // sorted by key
}

// NewPools returns an empty cache.
func NewPools() *Pools {
	return &Pools{entries: map[int64]poolEntry{}, used: map[int64]bool{}}
}

// Compute is Compute, taking the pools it needs from p and keeping those
// it computes there.
func (p *Pools) Compute(in Input) Report { return compute(in, p, nil) }

// ComputeKeeping is Compute whose report holds the results (Report.Traces)
// of only the listings keep accepts, in the order the whole report has
// them; every other number of the report is the whole one's. It is for a
// caller that reads few of the results: a heartbeat after three years
// reads those of ours and of the recent traces, and held a 240-byte
// result for each of 380,000 traces through publishing
// (docs/decisions.md, "Memory"). keep is given each record a result is
// made of: a trace, or another agent's listing of its bytes; a nil keep
// keeps every result, as Compute.
func (p *Pools) ComputeKeeping(in Input, keep func(*ledger.Trace) bool) Report {
	return compute(in, p, keep)
}

// Assignments is NewAssignments, taking the pools it needs from p and
// keeping those it computes there.
func (p *Pools) Assignments(in Input) (Assignments, bool) { return newAssignments(in, p) }

// Computed is how many pools were computed, not found, since p was made
// or read.
func (p *Pools) Computed() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.computed
}

// lookup returns epoch e's pool when p holds it under key k.
func (p *Pools) lookup(e int64, k poolKey) ([]member, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	en, ok := p.entries[e]
	if !ok || en.key != k {
		return nil, false
	}
	p.used[e] = true
	return en.members, true
}

// store keeps epoch e's pool, computed from the files of key k.
func (p *Pools) store(e int64, k poolKey, ms []member) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.entries[e] = poolEntry{k, ms}
	p.used[e] = true
	p.computed++
}

// MaxPoolsBytes bounds the cache file a node reads: at about 60 bytes a
// change of a pool, four million admissions and losses of standing.
const MaxPoolsBytes = 256 << 20

// poolsFile is the cache as written: the used epochs in order, each
// pool as the members it adds to and drops from the one before it, and a
// sha256 of the epochs, which a file damaged in any way fails.
type poolsFile struct {
	Version int         `json:"version"`
	Sum     string      `json:"sum"`
	Epochs  []poolsDiff `json:"epochs"`
}

// poolsDiff is one epoch's pool, as its difference from the previous
// epoch's in the file (the first's from an empty pool).
type poolsDiff struct {
	Epoch int64       `json:"epoch"`
	Key   string      `json:"key"`
	Add   [][2]string `json:"add,omitempty"`  // key, name; sorted by key
	Drop  []string    `json:"drop,omitempty"` // keys, sorted
	// Away is the keys of the members added that are away (mesh-2026-5),
	// sorted; a member whose away changes is dropped and added.
	Away []string `json:"away,omitempty"`
}

// MarshalPools writes the pools p used since it was made or read, the
// same bytes for the same pools; nil when it used none (a mesh whose
// rules assign nothing), so that such a node writes no file.
func MarshalPools(p *Pools) []byte {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.used) == 0 {
		return nil
	}
	f := poolsFile{Version: poolsVersion, Epochs: []poolsDiff{}}
	var prev []member
	for _, e := range sortedEpochs(p.used) {
		en := p.entries[e]
		f.Epochs = append(f.Epochs, diffPools(e, en, prev))
		prev = en.members
	}
	f.Sum = epochsSum(f.Epochs)
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		panic(err) // strings, numbers and slices of them always encode
	}
	return append(out, '\n')
}

func sortedEpochs(m map[int64]bool) []int64 {
	out := make([]int64, 0, len(m))
	for e := range m {
		out = append(out, e)
	}
	slices.Sort(out)
	return out
}

// diffPools is epoch e's entry as its difference from the pool prev.
func diffPools(e int64, en poolEntry, prev []member) poolsDiff {
	d := poolsDiff{Epoch: e, Key: hex.EncodeToString(en.key[:])}
	i, j := 0, 0
	for i < len(en.members) || j < len(prev) {
		switch {
		case j == len(prev) || (i < len(en.members) && en.members[i].key < prev[j].key):
			d.add(en.members[i])
			i++
		case i == len(en.members) || prev[j].key < en.members[i].key:
			d.Drop = append(d.Drop, prev[j].key)
			j++
		default:
			if en.members[i] != prev[j] { // renamed, away or back: dropped and added
				d.Drop = append(d.Drop, prev[j].key)
				d.add(en.members[i])
			}
			i, j = i+1, j+1
		}
	}
	return d
}

// add writes m as added.
func (d *poolsDiff) add(m member) {
	d.Add = append(d.Add, [2]string{m.key, m.name})
	if m.away {
		d.Away = append(d.Away, m.key)
	}
}

// epochsSum is the hex sha256 of the epochs' JSON.
func epochsSum(es []poolsDiff) string {
	b, err := json.Marshal(es)
	if err != nil {
		panic(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ReadPools reads a cache MarshalPools wrote. A file of another version
// or damaged in any way is an error: the caller starts from an empty
// cache, which the next MarshalPools rewrites whole.
func ReadPools(data []byte) (*Pools, error) {
	var f poolsFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("read pools: %w", err)
	}
	if f.Version != poolsVersion {
		return nil, fmt.Errorf("read pools: version %d, not %d", f.Version, poolsVersion)
	}
	if f.Epochs == nil || epochsSum(f.Epochs) != f.Sum {
		return nil, errors.New("read pools: its sum does not match its epochs")
	}
	p := NewPools()
	cur := map[string]member{}
	for i, d := range f.Epochs {
		if i > 0 && d.Epoch <= f.Epochs[i-1].Epoch {
			return nil, fmt.Errorf("read pools: epoch %d after %d", d.Epoch, f.Epochs[i-1].Epoch)
		}
		en, err := applyDiff(cur, d)
		if err != nil {
			return nil, fmt.Errorf("read pools: epoch %d: %w", d.Epoch, err)
		}
		p.entries[d.Epoch] = en
	}
	return p, nil
}

// applyDiff applies d to the pool cur (key → member) and returns the
// resulting entry.
func applyDiff(cur map[string]member, d poolsDiff) (poolEntry, error) {
	var en poolEntry
	k, err := hex.DecodeString(d.Key)
	if err != nil || len(k) != len(en.key) {
		return en, fmt.Errorf("key %q is not a sha256", d.Key)
	}
	copy(en.key[:], k)
	for _, k := range d.Drop {
		if _, ok := cur[k]; !ok {
			return en, fmt.Errorf("drops %q, not in the pool", k)
		}
		delete(cur, k)
	}
	added := map[string]bool{}
	for _, a := range d.Add {
		if _, ok := cur[a[0]]; ok || a[0] == "" {
			return en, fmt.Errorf("adds %q, already in the pool or empty", a[0])
		}
		cur[a[0]] = member{key: a[0], name: a[1]}
		added[a[0]] = true
	}
	for _, k := range d.Away {
		m, ok := cur[k]
		if !ok || !added[k] || m.away {
			return en, fmt.Errorf("marks %q away, not added by it or twice", k)
		}
		m.away = true
		cur[k] = m
	}
	en.members = make([]member, 0, len(cur))
	for _, k := range sortedKeys(cur) {
		en.members = append(en.members, cur[k])
	}
	return en, nil
}
