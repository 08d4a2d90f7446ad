package signal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

// Load gathers SIGNAL's input from a node directory: peers' traces and
// validations from the ledger, and the node's own traces (its MANIFEST
// rows, with type and category from the files) and validations (every
// file in validations/, published or about to be), and the founders from
// FOUNDERS.md. agent and url name the node. Nothing else of the node's
// (no mesh.yaml setting) changes the input. It only reads.
func Load(dir, agent, url string) (Input, error) {
	return LoadFrom(dir, agent, url, Sources{})
}

// Sources are files of the node that a caller has already read and
// parsed, handed to LoadFrom so that they are not read and parsed again
// (the site builder parses every trace for its pages: reading them a
// second time here was a third of a rebuild of 10,000 traces). Whatever
// is left out is read from the node's directory exactly as Load reads it,
// so LoadFrom gives Load's input for the same files.
type Sources struct {
	// Manifest is the node's MANIFEST.md, parsed; nil reads it. A node
	// without one is an empty manifest.
	Manifest *manifest.Manifest
	// Traces holds trace files by the path their MANIFEST row names
	// ("traces/x.md"). A nil value is a file that is not a trace (it did
	// not parse), so the row's type and category stand; a path that is
	// absent is read and parsed.
	Traces map[string]*trace.Trace
	// Ledger is mesh-state/ledger.json as ledger.Load read it; nil reads it.
	Ledger *ledger.Ledger
}

// LoadFrom is Load for a caller that already holds some of the node's
// files (see Sources). Own validations are always read from the directory.
func LoadFrom(dir, agent, url string, src Sources) (Input, error) {
	in := Input{}
	decl, err := ReadFounders(dir)
	if err != nil {
		return in, err
	}
	in.Founders = decl.Founders
	m := src.Manifest
	if m == nil {
		if m, err = readManifest(dir); err != nil {
			return in, err
		}
	}
	own := ownTraces(dir, agent, url, m, src.Traces)
	vals, err := ownValidations(dir, agent, url)
	if err != nil {
		return in, err
	}
	l := src.Ledger
	if l == nil {
		if l, err = ledger.Load(filepath.Join(dir, filepath.FromSlash(node.LedgerFile))); err != nil {
			return in, fmt.Errorf("read ledger: %w", err)
		}
	}
	in.Traces = append(own, peerTraces(l, own)...)
	in.Validations = append(vals, peerValidations(l, agent, url)...)
	return in, nil
}

// readManifest reads our MANIFEST.md; a node without one has an empty one.
func readManifest(dir string) (*manifest.Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, node.ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return &manifest.Manifest{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", node.ManifestFile, err)
	}
	m, _, err := manifest.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("our own %s: %w", node.ManifestFile, err)
	}
	return m, nil
}

// ownTraces lists our MANIFEST rows under traces/, with type and category
// filled from the files where the rows leave them out: from parsed when
// it holds the file, else read from dir.
func ownTraces(dir, agent, url string, m *manifest.Manifest, parsed map[string]*trace.Trace) []Trace {
	var out []Trace
	for _, e := range m.Entries {
		if e.Hash == "" || path.Dir(e.File) != node.TracesDir {
			continue
		}
		t := Trace{Agent: agent, AgentURL: url, Hash: e.Hash, URL: url + e.File, Seq: e.Seq, Type: e.Type, Category: e.Category}
		p, ok := parsed[e.File]
		if !ok {
			p = readTrace(dir, e.File)
		}
		if p != nil {
			t.Category = firstNonEmpty(t.Category, p.Category)
			t.Type = firstNonEmpty(t.Type, p.Type)
		}
		out = append(out, t)
	}
	return out
}

// readTrace reads and parses one of our trace files; nil when it cannot
// be read or is not a trace, which leaves its MANIFEST row as it is.
func readTrace(dir, file string) *trace.Trace {
	raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
	if err != nil {
		return nil
	}
	p, err := trace.Parse(raw)
	if err != nil {
		return nil
	}
	return p
}

// ownValidations reads the validation files the node publishes or is
// about to: those with a publishable name (node.Publishable) that parse.
// Any other file in validations/ is held back by publish with its reason
// and counts for nothing here; it must not stop the heartbeat.
func ownValidations(dir, agent, url string) ([]Validation, error) {
	entries, err := os.ReadDir(filepath.Join(dir, node.ValidationsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", node.ValidationsDir, err)
	}
	out := make([]Validation, 0, len(entries))
	for _, e := range entries {
		if !node.Publishable(e) {
			continue
		}
		raw, err := node.ReadFile(dir, path.Join(node.ValidationsDir, e.Name()), node.MaxFileBytes)
		if errors.Is(err, node.ErrTooLarge) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read own validation: %w", err)
		}
		v, err := validation.Parse(raw)
		if err != nil {
			continue
		}
		out = append(out, Validation{Validator: agent, ValidatorURL: url, TraceHash: v.TraceHash, Result: v.Result, Total: v.Total})
	}
	return out, nil
}

// peerTraces lists the ledger's traces that are not ours, sorted by hash.
func peerTraces(l *ledger.Ledger, own []Trace) []Trace {
	mine := map[string]bool{}
	for _, t := range own {
		mine[t.Hash] = true
	}
	var out []Trace
	for _, h := range sortedKeys(l.Traces) {
		t := l.Traces[h]
		if t == nil || mine[t.Hash] {
			continue
		}
		out = append(out, Trace{Agent: t.Agent, AgentURL: t.AgentURL, Hash: t.Hash, URL: t.URL, Type: t.Type, Category: t.Category, Seq: t.Seq})
	}
	return out
}

// peerValidations lists the ledger's validations by others; ours are read
// from our own files, which are the newer truth.
func peerValidations(l *ledger.Ledger, agent, url string) []Validation {
	var out []Validation
	for _, k := range sortedKeys(l.Validations) {
		v := l.Validations[k]
		if v == nil || strings.EqualFold(v.Validator, agent) || (url != "" && v.ValidatorURL == url) {
			continue
		}
		out = append(out, Validation{Validator: v.Validator, ValidatorURL: v.ValidatorURL, TraceHash: v.TraceHash, Result: v.Result, Total: v.Total})
	}
	return out
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
