package signal

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// Load gathers SIGNAL's input from the node at dir (Open, then
// FromSnapshot), for a command that needs nothing else of the node.
func Load(dir, agent, url string) (Input, error) {
	s, err := node.Open(dir, node.Options{})
	if err != nil {
		return Input{}, err
	}
	return FromSnapshot(s, agent, url)
}

// LoadPools reads the pools the node at dir keeps (node.PoolsFile), for a
// computation to take those it needs from. No file is an empty cache; a
// file that cannot be read, or that ReadPools refuses, is an empty cache
// and the error, for the caller to say: the pools are computed again, and
// a heartbeat rewrites the file whole.
func LoadPools(dir string) (*Pools, error) {
	data, err := node.ReadFile(dir, node.PoolsFile, MaxPoolsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return NewPools(), nil
	}
	if err == nil {
		var p *Pools
		if p, err = ReadPools(data); err == nil {
			return p, nil
		}
	}
	return NewPools(), fmt.Errorf("%s: %w", node.PoolsFile, err)
}

// FromSnapshot gathers SIGNAL's input from a snapshot of a node: peers'
// traces and validations from the ledger, and the node's own traces (its
// MANIFEST rows, with type and category from the files) and validations
// (every publishable file in validations/ that parses, published or about
// to be), peers' disputes from the ledger and ours from disputes/, and the
// founders and rule set from FOUNDERS.md; a rule set this
// node does not implement is an *UnknownRulesError. agent and url name the node.
// Nothing else of the node's (no mesh.yaml setting) changes the input.
func FromSnapshot(s *node.Snapshot, agent, url string) (Input, error) {
	return FromRows(s, s.Rows(), agent, url)
}

// FromRows is FromSnapshot with rows as the node's own rows: those its
// MANIFEST.md and archive pages will hold once a MANIFEST.md planned from
// the snapshot is written (node.Snapshot.RowsWith). A heartbeat resolves
// the statuses of the rows it writes from them, so that a trace it
// publishes gets the status its peers' validations already give it.
func FromRows(s *node.Snapshot, rows []manifest.Entry, agent, url string) (Input, error) {
	in := Input{}
	if s.FoundersErr != nil {
		return in, s.FoundersErr
	}
	if s.ManifestErr != nil {
		return in, s.ManifestErr
	}
	decl, err := ParseFounders(s.Founders)
	if err != nil {
		return in, err
	}
	if _, ok := RulesNamed(decl.Rules); !ok {
		return in, &UnknownRulesError{Name: decl.Rules}
	}
	in.Founders, in.Rules = decl.Founders, decl.Rules
	own := ownTraces(s, rows, agent, url)
	in.Traces = peerTraces(s.Ledger, own)
	in.Copies = copiesOf(s.Ledger, own)
	in.Validations = peerValidations(s.Ledger, ownValidations(s, agent, url), agent, url)
	in.Disputes = append(ownDisputes(s, agent, url), peerDisputes(s.Ledger, url)...)
	return in, nil
}

// ownDisputes lists the dispute files the node publishes or is about to,
// those that parse, as the node's own.
func ownDisputes(s *node.Snapshot, agent, url string) []ledger.Dispute {
	var out []ledger.Dispute
	for _, f := range s.Files(node.DisputesDir) {
		if f.Err != nil {
			continue
		}
		d, err := dispute.Parse(f.Data)
		if err != nil {
			continue
		}
		ld := ledger.DisputeOf(d)
		ld.Reporter, ld.ReporterURL = agent, url
		out = append(out, ld)
	}
	return out
}

// peerDisputes lists the ledger's disputes by others, by key; ours are
// read from our own files.
func peerDisputes(l *ledger.Ledger, url string) []ledger.Dispute {
	var out []ledger.Dispute
	for _, d := range l.SortedDisputes() {
		if url == "" || d.ReporterURL != url {
			out = append(out, *d)
		}
	}
	return out
}

// ownTraces lists our rows that are traces (node.KindOf), MANIFEST.md's and
// its archive pages', as a peer reading our manifest takes them, with type
// and category filled from the snapshot's files where the rows leave them
// out.
func ownTraces(s *node.Snapshot, rows []manifest.Entry, agent, url string) []*ledger.Trace {
	var out []*ledger.Trace
	for _, e := range rows {
		if e.Hash == "" || node.KindOf(e) != node.KindTrace {
			continue
		}
		t := ledger.Trace{Agent: agent, AgentURL: url, Hash: e.Hash, URL: url + e.File, File: e.File, Seq: e.Seq, Type: e.Type,
			Category: e.Category, Submitted: e.Submitted}
		if p, err := s.Trace(e.File); err == nil {
			t.Category = firstNonEmpty(t.Category, p.Category)
			t.Type = firstNonEmpty(t.Type, p.Type)
		}
		if f, ok := s.File(e.File); ok && f.Err == nil {
			t.Verdicts = ledger.VerdictsOf(f.Data, agent)
		}
		out = append(out, &t)
	}
	return out
}

// ownValidations lists the validation files the node publishes or is
// about to: those with a publishable name (node.Publishable) that parse.
// Any other file in validations/ is held back by publish with its reason
// and counts for nothing here; it must not stop the heartbeat. The
// snapshot parses each file once (node.Snapshot.Validation), so a second
// gathering in a heartbeat parses only the files written since; the
// records are this gathering's own, in one array.
func ownValidations(s *node.Snapshot, agent, url string) []*ledger.Validation {
	files := s.Files(node.ValidationsDir)
	recs := make([]ledger.Validation, 0, len(files))
	for _, f := range files {
		lv, err := s.Validation(f)
		if err != nil {
			continue
		}
		lv.Validator, lv.ValidatorURL = agent, url
		lv.SourceURL, lv.SourceHash = url+f.Path, f.Hash
		recs = append(recs, lv)
	}
	if len(recs) == 0 {
		return nil
	}
	out := make([]*ledger.Validation, len(recs))
	for i := range recs {
		out[i] = &recs[i]
	}
	return out
}

// peerTraces is own followed by the ledger's traces that are not ours,
// sorted by hash: the ledger's records themselves, not copies of them, in
// one array of the size it needs, for a heartbeat with news gathers every
// trace of the history.
func peerTraces(l *ledger.Ledger, own []*ledger.Trace) []*ledger.Trace {
	mine := map[manifest.Hash]bool{}
	for _, t := range own {
		mine[t.Hash] = true
	}
	out := slices.Grow(own, len(l.Traces))
	for _, h := range sortedKeys(l.Traces) {
		t := l.Traces[h]
		if t == nil || mine[t.Hash] {
			continue
		}
		out = append(out, t)
	}
	return out
}

// copiesOf lists the other listings of traces' bytes the ledger holds:
// its copies, and peers' listings of our own traces (which peerTraces
// leaves out), by agent URL, seq, then hash.
func copiesOf(l *ledger.Ledger, own []*ledger.Trace) []*ledger.Trace {
	mine := map[manifest.Hash]bool{}
	for _, t := range own {
		mine[t.Hash] = true
	}
	return append(l.SortedTracesOf(mine), l.SortedCopies()...)
}

// peerValidations is own followed by the ledger's validations by others,
// in one array of the size it needs; ours are read from our own files,
// which are the newer truth.
func peerValidations(l *ledger.Ledger, own []*ledger.Validation, agent, url string) []*ledger.Validation {
	out := slices.Grow(own, len(l.Validations))
	for _, k := range sortedKeys(l.Validations) {
		v := l.Validations[k]
		if v == nil || strings.EqualFold(v.Validator, agent) || (url != "" && v.ValidatorURL == url) {
			continue
		}
		out = append(out, v)
	}
	return out
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
