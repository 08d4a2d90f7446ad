package site

import (
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/trace"
)

// shownApart are trace fields a page shows in their own place, so they are
// not repeated in the metadata list.
var shownApart = map[string]bool{"title": true, "type": true, "category": true, "tags": true, "cites": true, "citations": true}

// loadTraces builds our traces from traces/*.md, with seq, hash, status
// and time from MANIFEST rows (the only hash that counts). Files are
// parsed on every core, through the snapshot (Snapshot.Trace), which
// keeps each parse for SIGNAL: with 10,000 traces, parsing is most of a
// rebuild.
func loadTraces(n *Node, snap *node.Snapshot) {
	rows := map[string]manifest.Entry{}
	for _, e := range snap.Rows() {
		rows[e.File] = e
	}
	var files []File
	for _, f := range n.Files {
		if path.Dir(f.Path) == tracesDir && path.Ext(f.Path) == ".md" {
			files = append(files, f)
		}
	}
	n.Traces = make([]*Trace, len(files))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, f := range files {
		g.Go(func() error {
			p, err := snap.Trace(f.Path)
			n.Traces[i] = listedTrace(f, p, err, rows)
			return nil
		})
	}
	_ = g.Wait() // listedTrace never fails
	sort.SliceStable(n.Traces, func(i, j int) bool {
		a, b := n.Traces[i], n.Traces[j]
		if a.Seq != b.Seq {
			return a.Seq > b.Seq
		}
		return a.File < b.File
	})
}

// listedTrace is one trace file with what its MANIFEST row says; a file
// the MANIFEST does not list is "unpublished", hashed as it is.
func listedTrace(f File, p *trace.Trace, err error, rows map[string]manifest.Entry) *Trace {
	t := ownTrace(f.Data, p, err)
	row, listed := rows[f.Path]
	t.File, t.Seq, t.Hash, t.Submitted = f.Path, row.Seq, row.Hash, row.Submitted.UTC()
	t.Status = manifest.NormalizeStatus(row.Status)
	if !listed {
		t.Hash, t.Status = manifest.HashBytes(f.Data), "unpublished"
	}
	t.Type = firstOf(t.Type, row.Type)
	t.Title = firstOf(t.Title, strings.TrimSuffix(path.Base(f.Path), ".md"))
	return t
}

// ownTrace is one of our trace files, as internal/trace parsed it (p, or
// err). A file that is not a trace (not UTF-8, or blank) still gets a
// page: its bytes are published either way, so the page shows them as
// they are.
func ownTrace(data []byte, p *trace.Trace, err error) *Trace {
	if err != nil {
		return &Trace{Body: data}
	}
	t := &Trace{Entry: manifest.Entry{Title: p.Title, Type: p.Type, Category: p.Category}, Tags: p.Tags, Body: p.Body}
	t.Cites = citesOf(p.Cites, trace.FindCitations(p.Body))
	for _, k := range sortedKeys(p.Fields) {
		if !shownApart[k] && p.Fields[k] != "" {
			t.Meta = append(t.Meta, Field{Name: k, Value: p.Fields[k]})
		}
	}
	return t
}

// citesOf merges the declared citations with those mentioned in the body,
// as canonical keys ("czero/96"), in order of first appearance, once each.
func citesOf(lists ...[]trace.Citation) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, c := range l {
			k := citeKey(c.Agent, c.Seq)
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// loadGiven reads the validations we published, each parsed once for
// the whole build (node.Snapshot.Validation: SIGNAL's input, gathered
// before, parsed them already). A file that does not parse is left to
// `meshnode check` to report; the site still copies it. rows
// (MANIFEST.md's and its archive pages') give each its seq.
func loadGiven(n *Node, snap *node.Snapshot) {
	rows := snap.Rows()
	seqs := make(map[string]manifest.Seq, len(rows))
	for _, e := range rows {
		seqs[e.File] = e.Seq
	}
	for _, f := range snap.Files(node.ValidationsDir) {
		if path.Ext(f.Path) != ".md" {
			continue
		}
		v, err := snap.Validation(f)
		if err != nil {
			continue
		}
		vote := voteOf(v)
		vote.File, vote.Seq = f.Path, seqs[f.Path]
		n.Given = append(n.Given, vote)
	}
	sortVotes(n.Given)
}

// voteOf is the page's view of a validation record.
func voteOf(v ledger.Validation) *Vote {
	return &Vote{Validator: v.Validator, ValidatorURL: v.ValidatorURL, TraceURL: v.TraceURL, TraceHash: v.TraceHash,
		Result: v.Result, Total: v.Total, Scores: v.Scores, HasScores: v.HasScores, ValidatedAt: v.ValidatedAt.UTC()}
}

// sortVotes orders votes newest first: by date, then, among ours of one
// date (a heartbeat publishes many at once), by the seq that published
// them.
func sortVotes(vs []*Vote) {
	sort.SliceStable(vs, func(i, j int) bool {
		if !vs[i].ValidatedAt.Equal(vs[j].ValidatedAt) {
			return vs[i].ValidatedAt.After(vs[j].ValidatedAt)
		}
		if vs[i].Seq != vs[j].Seq {
			return vs[i].Seq > vs[j].Seq
		}
		return vs[i].TraceHash < vs[j].TraceHash
	})
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
