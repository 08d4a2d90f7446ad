package demo

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/validation"
)

//go:embed mesh
var content embed.FS

// published is one file an agent publishes, with the round it appears in.
type published struct {
	seq    manifest.Seq
	file   string // path under the agent's base URL
	typ    string
	body   []byte
	served []byte // bytes actually served, when they differ (tampering)
	round  int
}

// agent is one sample peer.
type agent struct {
	name    string
	variant bool // writes the real-world manifest variant, not the canonical one
	files   []published
}

// mesh is the sample peers, served by an http.Handler whose content moves
// from round 1 to round 2 when advance is called.
type mesh struct {
	mu     sync.Mutex
	round  int
	agents map[string]*agent
	base   map[string]string // agent → base URL, once servers are up
}

func readEmbedded(name string) []byte {
	b, err := fs.ReadFile(content, "mesh/"+name)
	if err != nil {
		panic("demo: embedded file missing: " + name) // a build mistake, not input
	}
	return b
}

// newMesh builds the sample peers. nodeTrace is the demo node's own trace,
// which cyd validates so the demo shows a status coming back.
func newMesh(nodeURL string, nodeTrace []byte) *mesh {
	m := &mesh{round: 1, agents: map[string]*agent{}, base: map[string]string{}}
	m.agents["ada"] = &agent{name: "ada", files: []published{
		{seq: 1, file: "traces/001-polling-costs.md", typ: "knowledge", round: 1},
		{seq: 2, file: "traces/002-citation-graph.md", typ: "pattern", round: 1},
		{seq: 3, file: "traces/003-backoff-note.md", typ: "knowledge", round: 1},
		{seq: 4, file: "traces/004-new-after-first-heartbeat.md", typ: "capability", round: 2},
	}}
	m.agents["bob"] = &agent{name: "bob", variant: true, files: []published{
		{seq: 1, file: "traces/001-mismatch-is-signal.md", typ: "signal", round: 1},
		{seq: 2, file: "traces/002-gap-handling.md", typ: "knowledge", round: 1},
		{seq: 3, file: "traces/003-backfilled.md", typ: "knowledge", round: 2}, // the gap, backfilled
		{seq: 4, file: "traces/004-after-the-gap.md", typ: "ask", round: 1},
	}}
	cyd := &agent{name: "cyd", files: []published{
		{seq: 1, file: "traces/001-scoring-rubric.md", typ: "knowledge", round: 1},
		{seq: 2, file: "traces/002-tampered.md", typ: "knowledge", round: 1},
	}}
	m.agents["cyd"] = cyd
	m.agents["eve"] = &agent{name: "eve", files: []published{
		{seq: 1, file: "traces/001-learned-by-gossip.md", typ: "signal", round: 1},
	}}
	for _, a := range m.agents {
		for i := range a.files {
			f := &a.files[i]
			f.body = readEmbedded(a.name + "/" + path.Base(f.file))
		}
	}
	cyd.files[1].served = append(append([]byte(nil), cyd.files[1].body...), "(changed after publication)\n"...)
	m.nodeValidation(cyd, nodeURL, nodeTrace)
	return m
}

// nodeValidation makes cyd publish a passing validation of the demo node's
// own trace, in round 1.
func (m *mesh) nodeValidation(cyd *agent, nodeURL string, nodeTrace []byte) {
	hash := manifest.HashBytes(nodeTrace)
	v := &validation.Validation{
		Validator: "cyd", ValidatorURL: "", TraceURL: nodeURL + "traces/001-hello-mesh.md", TraceHash: hash,
		ValidatedAt: time.Date(2026, 2, 10, 9, 0, 0, 0, time.UTC),
		Notes:       "A clear introduction with a runnable command.",
	}
	v.SetScores(validation.Scores{4, 4, 3, 3, 4, 4})
	cyd.files = append(cyd.files, published{
		seq: 3, file: "validations/" + validation.FileName(hash), typ: "validation", round: 1, body: v.Format(),
	})
}

// advance moves the mesh to round 2: ada publishes a new trace and bob
// backfills the seq it had skipped.
func (m *mesh) advance() {
	m.mu.Lock()
	m.round = 2
	m.mu.Unlock()
}

// ServeHTTP serves /<agent>/MANIFEST.md, /<agent>/IDENTITY.md,
// /<agent>/AGENTS.md and the agents' files.
func (m *mesh) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	a := m.agents[name]
	if a == nil {
		http.NotFound(w, r)
		return
	}
	var body []byte
	switch rest {
	case manifest.FileName:
		body = m.manifest(a)
	case node.IdentityFile:
		body = readEmbedded(a.name + "/IDENTITY.md")
	case roster.FileName:
		body = m.agentsFile()
	default:
		for _, f := range a.files {
			if f.file == rest && f.round <= m.round {
				body = f.body
				if f.served != nil {
					body = f.served
				}
			}
		}
	}
	if body == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Write(body)
}

// manifest writes the agent's MANIFEST.md for the current round.
func (m *mesh) manifest(a *agent) []byte {
	var man manifest.Manifest
	man.Agent, man.URL = a.name, m.base[a.name]
	man.Updated = time.Date(2026, 2, 10+m.round, 12, 0, 0, 0, time.UTC)
	for _, f := range a.files {
		if f.round > m.round {
			continue
		}
		man.Entries = append(man.Entries, manifest.Entry{
			Seq: f.seq, Hash: manifest.HashBytes(f.body), File: f.file, Type: f.typ,
			Status: manifest.StatusPending, Submitted: time.Date(2026, 2, 1+int(f.seq), 10, 0, 0, 0, time.UTC),
		})
		if f.seq > man.Sequence {
			man.Sequence = f.seq
		}
	}
	if a.variant {
		return variantManifest(&man)
	}
	return man.Format()
}

// variantManifest writes the layout some real nodes publish: a title with
// the agent's name, a bold "Last Updated", the table header twice and blank
// lines between rows, rows oldest first.
func variantManifest(m *manifest.Manifest) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Manifest — %s\n\n**Last Updated:** %s\n\nsequence: %d\n\n## Traces\n\n", m.Agent, m.Updated.Format("2006-01-02T15:04:05.000Z"), m.Sequence)
	header := "| seq | hash | file | type | status | submitted |\n|-----|------|------|------|--------|-----------|\n"
	b.WriteString(header + header)
	rows := append([]manifest.Entry(nil), m.Entries...)
	sort.Slice(rows, func(i, j int) bool { return rows[i].Seq < rows[j].Seq })
	for _, e := range rows {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | submitted | %s |\n\n", e.Seq, e.Hash, e.File, e.Type, e.Submitted.Format("2006-01-02T15:04:05.000Z"))
	}
	return []byte(b.String())
}

// agentsFile is the AGENTS.md every sample peer serves. It names eve, whom
// the demo node's own AGENTS.md does not list: the node learns her by gossip.
func (m *mesh) agentsFile() []byte {
	var b strings.Builder
	b.WriteString("# name | trace_url | joined\n")
	names := make([]string, 0, len(m.base))
	for n := range m.base {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s | %s | 2026-02-01\n", n, m.base[n])
	}
	return []byte(b.String())
}
