package scoreeval

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/trace"
)

// SnapshotTime is when the snapshot was taken (its README): the evaluation
// scores every trace as a node that caught up with the mesh that day.
var SnapshotTime = time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)

// Trace is one trace of the snapshot.
type Trace struct {
	Agent       string
	Entry       manifest.Entry
	Raw         []byte
	Parsed      *trace.Trace // nil when it does not parse
	Fingerprint trace.Fingerprint
}

// Record returns t as the ledger of a node that polled the agent would
// keep it, at the URL the corpus was published at.
func (t *Trace) Record() ledger.Trace {
	e := t.Entry
	return ledger.Trace{
		Agent: t.Agent, Seq: e.Seq, Hash: e.Hash, File: e.File,
		URL:  "https://mycelnet.ai/basecamp/agents-hosted/" + t.Agent + "/" + e.File,
		Type: e.Type, Category: e.Category, Title: e.Title, Status: e.Status, Submitted: e.Submitted,
	}
}

// Corpus is the snapshot's traces, by agent in MANIFEST order.
type Corpus struct {
	Dir    string
	Traces []*Trace
	byHash map[manifest.Hash]*Trace
}

// LoadCorpus reads every agent's MANIFEST.md and the files its rows list,
// checking each file's sha256 against its row.
func LoadCorpus(dir string) (*Corpus, error) {
	agents, err := os.ReadDir(filepath.Join(dir, "agents-hosted"))
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	c := &Corpus{Dir: dir, byHash: map[manifest.Hash]*Trace{}}
	for _, a := range agents {
		if a.IsDir() {
			if err := c.loadAgent(a.Name()); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

func (c *Corpus) loadAgent(agent string) error {
	base := filepath.Join(c.Dir, "agents-hosted", agent)
	data, err := os.ReadFile(filepath.Join(base, manifest.FileName))
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	m, _, err := manifest.Parse(data)
	if err != nil {
		return fmt.Errorf("corpus: %s: %w", agent, err)
	}
	for _, e := range m.Entries {
		if e.File == "" {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(base, filepath.FromSlash(e.File)))
		if err != nil {
			return fmt.Errorf("corpus: %w", err)
		}
		if got := manifest.HashBytes(raw); got != e.Hash {
			return fmt.Errorf("corpus: %s/%s hashes %s, its row says %s", agent, e.File, got, e.Hash)
		}
		t := &Trace{Agent: agent, Entry: e, Raw: raw}
		if p, err := trace.Parse(raw); err == nil {
			t.Parsed = p
		}
		t.Fingerprint = score.Fingerprint(body(t))
		c.Traces = append(c.Traces, t)
		if _, ok := c.byHash[e.Hash]; !ok {
			c.byHash[e.Hash] = t // a republished copy's hash names the first
		}
	}
	return nil
}

func body(t *Trace) []byte {
	if t.Parsed != nil && len(t.Parsed.Body) > 0 {
		return t.Parsed.Body
	}
	return t.Raw
}

// ByHash returns the trace with that hash: the first published, when an
// agent republished the same bytes (noobagent's files 065 and 066).
func (c *Corpus) ByHash(hash manifest.Hash) (*Trace, bool) {
	t, ok := c.byHash[hash]
	return t, ok
}

// Resolve finds the trace an agent meant by "agent/N": agents number their
// traces by file name (noobagent's file 030 is its seq 31), so a file
// NNN-*.md wins, the row whose seq is N breaking ties; else the row whose
// seq is N.
func (c *Corpus) Resolve(agent string, n int) (*Trace, bool) {
	prefix := fmt.Sprintf("traces/%03d-", n)
	var byFile []*Trace
	var bySeq *Trace
	for _, t := range c.Traces {
		if !strings.EqualFold(t.Agent, agent) {
			continue
		}
		if strings.HasPrefix(t.Entry.File, prefix) {
			byFile = append(byFile, t)
		}
		if t.Entry.Seq == manifest.Seq(n) {
			bySeq = t
		}
	}
	for _, t := range byFile {
		if t == bySeq {
			return t, true
		}
	}
	if len(byFile) > 0 {
		sort.Slice(byFile, func(i, j int) bool { return byFile[i].Entry.Seq < byFile[j].Entry.Seq })
		return byFile[0], true
	}
	return bySeq, bySeq != nil
}

// ResolveURL finds the trace a curated entry's URL points at.
func (c *Corpus) ResolveURL(u string) (*Trace, bool) {
	i := strings.Index(u, "/agents-hosted/")
	if i < 0 {
		return nil, false
	}
	agent, file, ok := strings.Cut(u[i+len("/agents-hosted/"):], "/")
	if !ok {
		return nil, false
	}
	for _, t := range c.Traces {
		if t.Agent == agent && t.Entry.File == file {
			return t, true
		}
	}
	return nil, false
}

// Input builds what a scorer sees for t as of now: the traces submitted
// before it are known, as they would be to a node that polled the mesh
// as it grew.
func (c *Corpus) Input(t *Trace, now time.Time) score.Input {
	in := score.Input{Record: t.Record(), Raw: t.Raw, Trace: t.Parsed, Now: now}
	for _, k := range c.Traces {
		if k != t && earlier(k, t) {
			in.Known = append(in.Known, score.Known{Hash: k.Entry.Hash, Agent: k.Agent, Fingerprint: k.Fingerprint})
		}
	}
	return in
}

// earlier reports whether a was published before b: by submitted time,
// else, for the same agent, by seq.
func earlier(a, b *Trace) bool {
	sa, sb := a.Entry.Submitted, b.Entry.Submitted
	if !sa.Equal(sb) {
		return !sa.IsZero() && (sb.IsZero() || sa.Before(sb))
	}
	return a.Agent == b.Agent && a.Entry.Seq < b.Entry.Seq
}

// Name is "agent/seq" of t, for reports.
func (t *Trace) Name() string { return fmt.Sprintf("%s/%d", t.Agent, t.Entry.Seq) }
