package signal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

// Files Load reads, relative to the node's directory.
const (
	LedgerFile     = "mesh-state/ledger.json"
	ManifestFile   = "MANIFEST.md"
	TracesDir      = "traces"
	ValidationsDir = "validations"
)

// Load gathers SIGNAL's input from a node directory: peers' traces and
// validations from the ledger, and the node's own traces (its MANIFEST
// rows, with type and category from the files) and validations (every
// file in validations/, published or about to be). agent and url name the
// node; bootstrap is mesh.yaml's signal.bootstrap. It only reads.
func Load(dir, agent, url string, bootstrap map[string]float64) (Input, error) {
	in := Input{Bootstrap: bootstrap}
	own, err := ownTraces(dir, agent, url)
	if err != nil {
		return in, err
	}
	vals, err := ownValidations(dir, agent, url)
	if err != nil {
		return in, err
	}
	l, err := ledger.Load(filepath.Join(dir, filepath.FromSlash(LedgerFile)))
	if err != nil {
		return in, fmt.Errorf("read ledger: %w", err)
	}
	in.Traces = append(own, peerTraces(l, own)...)
	in.Validations = append(vals, peerValidations(l, agent, url)...)
	return in, nil
}

// ownTraces reads our MANIFEST rows under traces/.
func ownTraces(dir, agent, url string) ([]Trace, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", ManifestFile, err)
	}
	m, _, err := manifest.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("our own %s: %w", ManifestFile, err)
	}
	var out []Trace
	for _, e := range m.Entries {
		if e.Hash == "" || path.Dir(e.File) != TracesDir {
			continue
		}
		t := Trace{Agent: agent, AgentURL: url, Hash: e.Hash, URL: url + e.File, Seq: e.Seq, Type: e.Type, Category: e.Category}
		if raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.File))); err == nil {
			if p, err := trace.Parse(raw); err == nil {
				t.Category = firstNonEmpty(t.Category, p.Category)
				t.Type = firstNonEmpty(t.Type, p.Type)
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// ownValidations reads every validation file the node wrote.
func ownValidations(dir, agent, url string) ([]Validation, error) {
	files, err := filepath.Glob(filepath.Join(dir, ValidationsDir, "*.md"))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", ValidationsDir, err)
	}
	sort.Strings(files)
	out := make([]Validation, 0, len(files))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read own validation: %w", err)
		}
		v, err := validation.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("own validation %s: %w", filepath.Base(f), err)
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
