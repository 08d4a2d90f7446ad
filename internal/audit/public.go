package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
)

// public is what the audited node publishes: its MANIFEST, the files it
// lists that verify, AGENTS.md and FOUNDERS.md, and the pages of its site.
type public struct {
	agent, url  string
	manifestRaw []byte
	manifest    *manifest.Manifest
	seenAt      time.Time
	peers       []roster.Agent
	files       map[string][]byte // by relative path, including AGENTS.md and FOUNDERS.md
	problems    []FileProblem
	pages       *pages // the site's pages verify checks
}

// readPublic reads the audited node's public files from src, each within
// its size limit. Files its MANIFEST lists that are missing or do not
// hash to their row are problems, left out as a peer would leave them out.
// Pages that cannot be read are notes.
func readPublic(ctx context.Context, src source, lim config.Limits) (*public, error) {
	raw, err := src.read(ctx, node.ManifestFile, lim.ManifestBytes)
	if errors.Is(err, errNotFound) {
		return nil, fmt.Errorf("%s: %w", src, ErrNoManifest)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: read %s: %w", src, node.ManifestFile, err)
	}
	m, _, err := manifest.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", src, node.ManifestFile, err)
	}
	p := &public{agent: m.Agent, url: m.URL, manifestRaw: raw, manifest: m, files: map[string][]byte{}, problems: []FileProblem{}}
	for _, name := range []string{node.AgentsFile, node.FoundersFile, node.IdentityFile} {
		data, err := src.read(ctx, name, lim.AgentsBytes)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: read %s: %w", src, name, err)
		}
		p.files[name] = data
	}
	p.peers, _ = roster.Parse(p.files[node.AgentsFile])
	for _, e := range m.Entries {
		if err := p.readEntry(ctx, src, e, lim.TraceBytes); err != nil {
			return nil, err
		}
	}
	if p.pages, err = readPages(ctx, src, m, maxSiteBytes); err != nil {
		return nil, err
	}
	return p, nil
}

// readEntry reads one listed file and checks its hash. Only a local
// failure (a canceled read) is an error; what the node serves is a
// finding.
func (p *public) readEntry(ctx context.Context, src source, e manifest.Entry, max int64) error {
	switch path.Dir(e.File) {
	case node.TracesDir, node.ValidationsDir, node.DisputesDir:
	default:
		return nil
	}
	data, err := src.read(ctx, e.File, max)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	switch {
	case errors.Is(err, errNotFound):
		p.problems = append(p.problems, FileProblem{Seq: e.Seq, File: e.File, Problem: "listed but not served"})
	case err != nil:
		p.problems = append(p.problems, FileProblem{Seq: e.Seq, File: e.File, Problem: err.Error()})
	case manifest.HashBytes(data) != e.Hash:
		p.problems = append(p.problems, FileProblem{Seq: e.Seq, File: e.File,
			Problem: fmt.Sprintf("served bytes hash to %s, MANIFEST.md lists %s", manifest.HashBytes(data), e.Hash)})
	default:
		p.files[e.File] = data
	}
	return nil
}

// lay writes the public files into dir as a node of their own: the
// scratch node whose heartbeat reads the agents the audited node names.
// The rows of files not laid out are left out of its MANIFEST, or the
// heartbeat would refuse to run on a node whose published file is gone;
// SIGNAL is computed from the MANIFEST as published.
func (p *public) lay(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, node.ManifestFile), p.withoutProblems(), 0o644); err != nil {
		return err
	}
	for rel, data := range p.files {
		full := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// withoutProblems is the raw MANIFEST without the rows of files not laid
// out: problems, and files outside traces/, validations/ and disputes/.
func (p *public) withoutProblems() []byte {
	missing := map[string]bool{}
	for _, e := range p.manifest.Entries {
		if _, ok := p.files[e.File]; e.File != "" && !ok {
			missing[e.File] = true
		}
	}
	if len(missing) == 0 {
		return p.manifestRaw
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(p.manifestRaw), "\n") {
		if !namesAny(l, missing) {
			b.WriteString(l)
		}
	}
	return []byte(b.String())
}

// namesAny reports whether line is a table row with a cell in files.
func namesAny(line string, files map[string]bool) bool {
	if !strings.HasPrefix(strings.TrimSpace(line), "|") {
		return false
	}
	for _, cell := range strings.Split(line, "|") {
		if files[strings.TrimSpace(cell)] {
			return true
		}
	}
	return false
}
