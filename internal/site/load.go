package site

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/state"
)

// Files and folders of a node that the site publishes or reads.
const (
	manifestFile   = "MANIFEST.md"
	identityFile   = "IDENTITY.md"
	agentsFile     = "AGENTS.md"
	tracesDir      = "traces"
	validationsDir = "validations"
	disputesDir    = "disputes"
	cursorsFile    = "mesh-state/polling-cursors.json"
)

// Load reads the node at dir into a Node, from local files only. Missing
// files give empty parts (a new node has no validations); unreadable ones
// are errors. now is the time presence is judged at.
func Load(dir string, now time.Time) (*Node, error) {
	n := &Node{}
	m, err := loadManifest(dir, n)
	if err != nil {
		return nil, err
	}
	if err := loadIdentity(dir, n); err != nil {
		return nil, err
	}
	if err := loadPublished(dir, n); err != nil {
		return nil, err
	}
	if err := loadTraces(dir, n, m); err != nil {
		return nil, err
	}
	if err := loadGiven(dir, n); err != nil {
		return nil, err
	}
	if err := loadPeers(dir, n, now); err != nil {
		return nil, err
	}
	n.Signals = standings(n)
	for _, s := range n.Signals {
		if s.Agent == n.Agent {
			n.Signal, n.Tier = s.Signal, s.Tier
		}
	}
	return n, nil
}

// readOptional reads a file, returning nil for a missing one.
func readOptional(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return b, nil
}

func loadManifest(dir string, n *Node) (*manifest.Manifest, error) {
	data, err := readOptional(filepath.Join(dir, manifestFile))
	if err != nil || data == nil {
		return &manifest.Manifest{}, err
	}
	m, _, err := manifest.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", manifestFile, err)
	}
	n.Agent, n.URL, n.Updated, n.Sequence = m.Agent, m.URL, m.Updated.UTC(), m.Sequence
	return m, nil
}

func loadIdentity(dir string, n *Node) error {
	data, err := readOptional(filepath.Join(dir, identityFile))
	if err != nil {
		return err
	}
	n.Identity = parseIdentity(data)
	if n.Agent == "" {
		for _, f := range n.Identity {
			if strings.EqualFold(f.Name, "name") {
				n.Agent = f.Value
			}
		}
	}
	return nil
}

// loadPublished collects every published file, to be copied byte for byte.
func loadPublished(dir string, n *Node) error {
	for _, name := range []string{manifestFile, identityFile, agentsFile} {
		data, err := readOptional(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if data != nil {
			n.Files = append(n.Files, File{Path: name, Data: data})
		}
	}
	for _, d := range []string{tracesDir, validationsDir, disputesDir} {
		files, err := readDir(dir, d)
		if err != nil {
			return err
		}
		n.Files = append(n.Files, files...)
	}
	return nil
}

// readDir reads every regular file under dir/sub, sorted by path. Dotfiles
// (editor droppings, atomicfile temporaries) are not published.
func readDir(dir, sub string) ([]File, error) {
	var files []File
	root := filepath.Join(dir, sub)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == root {
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != root {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, File{Path: filepath.ToSlash(rel), Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", root, err)
	}
	return files, nil
}

// loadTraces builds our traces from traces/*.md, with seq, hash, status
// and time from MANIFEST rows (the only hash that counts).
func loadTraces(dir string, n *Node, m *manifest.Manifest) error {
	rows := map[string]manifest.Entry{}
	for _, e := range m.Entries {
		rows[e.File] = e
	}
	for _, f := range n.Files {
		if path.Dir(f.Path) != tracesDir || path.Ext(f.Path) != ".md" {
			continue
		}
		t := readTrace(f.Data)
		t.File = f.Path
		row, listed := rows[f.Path]
		t.Seq, t.Hash, t.Submitted = row.Seq, row.Hash, row.Submitted.UTC()
		t.Status = manifest.NormalizeStatus(row.Status)
		if !listed {
			t.Hash, t.Status = manifest.HashBytes(f.Data), "unpublished"
		}
		t.Type = firstOf(t.Type, row.Type)
		t.Title = firstOf(t.Title, strings.TrimSuffix(path.Base(f.Path), ".md"))
		n.Traces = append(n.Traces, t)
	}
	sort.SliceStable(n.Traces, func(i, j int) bool {
		a, b := n.Traces[i], n.Traces[j]
		if a.Seq != b.Seq {
			return a.Seq > b.Seq
		}
		return a.File < b.File
	})
	return nil
}

// loadGiven reads the validations we published, and attaches each to our
// trace when it scores one of ours (it never should: seed 000).
func loadGiven(dir string, n *Node) error {
	for _, f := range n.Files {
		if path.Dir(f.Path) != validationsDir || path.Ext(f.Path) != ".md" {
			continue
		}
		v, err := readValidation(f.Data)
		if err != nil {
			continue // not ours to fix here; `meshnode check` reports it
		}
		v.File = f.Path
		n.Given = append(n.Given, v)
		n.Votes = append(n.Votes, v)
	}
	sortVotes(n.Given)
	return nil
}

func sortVotes(vs []*Vote) {
	sort.SliceStable(vs, func(i, j int) bool {
		if !vs[i].ValidatedAt.Equal(vs[j].ValidatedAt) {
			return vs[i].ValidatedAt.After(vs[j].ValidatedAt)
		}
		return vs[i].TraceHash < vs[j].TraceHash
	})
}

// loadPeers reads AGENTS.md and the polling cursors into the peer list.
func loadPeers(dir string, n *Node, now time.Time) error {
	data, err := readOptional(filepath.Join(dir, agentsFile))
	if err != nil {
		return err
	}
	agents, _ := roster.Parse(data)
	st, err := state.Load(filepath.Join(dir, cursorsFile))
	if err != nil {
		return fmt.Errorf("read %s: %w", cursorsFile, err)
	}
	byURL := map[string]*Peer{}
	for _, a := range agents {
		byURL[a.URL] = &Peer{Name: a.Name, URL: a.URL}
	}
	for u, c := range st.Cursors {
		p := byURL[u]
		if p == nil {
			p = &Peer{Name: firstOf(c.Agent, u), URL: u}
			byURL[u] = p
		}
		p.LastSeenSeq, p.Failures, p.LastError = c.LastSeenSeq, c.FailureCount, c.LastError
		p.LastPolled, p.LastSuccess, p.LearnedFrom = c.LastPolled.UTC(), c.LastSuccess.UTC(), c.LearnedFrom
	}
	for _, p := range byURL {
		c := st.Cursors[p.URL]
		p.Presence = presenceOf(c, now)
		if p.URL != n.URL {
			n.Peers = append(n.Peers, p)
		}
	}
	sort.Slice(n.Peers, func(i, j int) bool {
		if n.Peers[i].Name != n.Peers[j].Name {
			return n.Peers[i].Name < n.Peers[j].Name
		}
		return n.Peers[i].URL < n.Peers[j].URL
	})
	return nil
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
