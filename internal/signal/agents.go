package signal

import (
	"slices"
	"strings"
)

// agentTable numbers the agents the files name while a mesh is built:
// each agent key once, as an entry (a small integer), so that building
// compares and indexes integers, and hashes a spelling of an agent (its
// URL, or its name when a file gives no URL) once per file rather than
// its key at every step. Entries are numbered in the order the files
// name them; index turns the learned ones into agent ids, by key.
type agentTable struct {
	byURL   map[string]int // trace URL as written → entry
	byName  map[string]int // name as written by a file that gives no URL → entry
	byKey   map[string]int // agent key → entry
	keys    []string       // entry → agent key
	names   []string       // entry → name as first learned
	urls    []string       // entry → trace URL as first learned
	learned []bool         // entry → named by a trace, founder or vote the mesh keeps
	founder []bool         // entry → named in FOUNDERS.md
}

func newAgentTable() *agentTable {
	return &agentTable{byURL: map[string]int{}, byName: map[string]int{}, byKey: map[string]int{}}
}

// entry is the entry of the agent a file names by name and url
// (agentKey), added when new.
func (t *agentTable) entry(name, url string) int {
	by, spelling := t.byURL, url
	if url == "" {
		by, spelling = t.byName, name
	}
	if e, ok := by[spelling]; ok {
		return e
	}
	e := t.add(agentKey(name, url))
	by[spelling] = e
	return e
}

// add returns the entry of key k, added when new.
func (t *agentTable) add(k string) int {
	if e, ok := t.byKey[k]; ok {
		return e
	}
	e := len(t.keys)
	t.byKey[k] = e
	t.keys = append(t.keys, k)
	t.names = append(t.names, "")
	t.urls = append(t.urls, "")
	t.learned = append(t.learned, false)
	t.founder = append(t.founder, false)
	return e
}

// learn records entry e as an agent of the mesh, by the name and URL a
// file gives it: the first name that is not empty, the first URL.
func (t *agentTable) learn(e int, name, url string) {
	if !t.learned[e] || t.names[e] == "" {
		t.names[e] = strings.TrimSpace(name)
	}
	t.learned[e] = true
	if url != "" && t.urls[e] == "" {
		t.urls[e] = url
	}
}

// ranks is each entry's place among all entries sorted by key: two
// entries compare as their keys do.
func (t *agentTable) ranks() []int {
	byKey := t.sorted()
	rank := make([]int, len(t.keys))
	for r, e := range byKey {
		rank[e] = r
	}
	return rank
}

// sorted is the entries in the order of their keys.
func (t *agentTable) sorted() []int {
	es := make([]int, len(t.keys))
	for e := range es {
		es[e] = e
	}
	slices.SortFunc(es, func(a, b int) int { return strings.Compare(t.keys[a], t.keys[b]) })
	return es
}
