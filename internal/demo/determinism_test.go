package demo_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/roster"
)

// The demo's peers and node listen on random loopback ports, so two runs
// differ in those ports and in the hashes of files that contain them, and
// must not differ in anything else. nodeFiles replaces each port by its
// server's role and each such hash by a name for what it hashes; every
// other byte of MANIFEST.md, validations/, disputes/ and mesh-state/*.json
// is compared. One run built the site and the other did not: building it
// must not change the node's files either.
func TestDemoIsDeterministic(t *testing.T) {
	t.Parallel()
	a, b := sharedDemo(t), plainDemo(t)
	fa, fb := a.nodeFiles(t), b.nodeFiles(t)
	if len(fa) < 13 {
		t.Fatalf("found %d node files, want MANIFEST.md, 10 validations, a dispute and the state", len(fa))
	}
	for name, data := range fa {
		other, ok := fb[name]
		if !ok {
			t.Errorf("%s: written by the first run only", name)
		} else if !bytes.Equal(data, other) {
			t.Errorf("%s differs between runs:\n--- first\n%s\n--- second\n%s", name, data, other)
		}
	}
	for name := range fb {
		if _, ok := fa[name]; !ok {
			t.Errorf("%s: written by the second run only", name)
		}
	}
}

// nodeFiles returns the node's files with ports and port-dependent hashes
// replaced (see TestDemoIsDeterministic). JSON objects keyed by URL are
// ordered by port, so JSON files are decoded after the replacement and
// encoded again, which sorts their keys.
func (r *run) nodeFiles(t *testing.T) map[string][]byte {
	t.Helper()
	names := []string{"MANIFEST.md"}
	for _, pattern := range []string{"validations/*.md", "disputes/*.md", "mesh-state/*.json", "mesh-state/*/*.json"} {
		m, err := filepath.Glob(filepath.Join(r.dir, filepath.FromSlash(pattern)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			names = append(names, strings.TrimPrefix(filepath.ToSlash(f), filepath.ToSlash(r.dir)+"/"))
		}
	}
	replace := r.normalizer(t)
	out := map[string][]byte{}
	for _, name := range names {
		data := []byte(replace.Replace(string(r.read(t, name))))
		if strings.HasSuffix(name, ".json") {
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var err error
			if data, err = json.MarshalIndent(v, "", "  "); err != nil {
				t.Fatal(err)
			}
		}
		out[name] = data
	}
	return splitByContent(out)
}

// splitByContent renames the files of mesh-state's split directories,
// whose names carry a peer URL's port, by the directory and their sorted
// place among its normalized contents.
func splitByContent(files map[string][]byte) map[string][]byte {
	byDir := map[string][]string{}
	out := map[string][]byte{}
	for name, data := range files {
		if d := path.Dir(name); strings.Count(name, "/") == 2 && strings.HasPrefix(name, "mesh-state/") {
			byDir[d] = append(byDir[d], string(data))
			continue
		}
		out[name] = data
	}
	for d, contents := range byDir {
		sort.Strings(contents)
		for i, c := range contents {
			out[fmt.Sprintf("%s/#%d", d, i)] = []byte(c)
		}
	}
	return out
}

// normalizer replaces each server's 127.0.0.1:PORT by its role (read from
// the node's mesh.yaml and AGENTS.md), and the hashes of bytes that hold a
// URL by a name: our validations' and dispute's hashes in MANIFEST.md by
// the hash of the file with its ports replaced, the peers' manifest hashes
// by the agent's name, and cyd's validation of our trace by its URL.
func (r *run) normalizer(t *testing.T) *strings.Replacer {
	t.Helper()
	ports := r.portRoles(t)
	pairs := append([]string(nil), ports...)
	m, _, err := manifest.Parse(r.read(t, "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	portsOnly := strings.NewReplacer(ports...)
	for _, e := range m.Entries {
		if e.Type == "validation" || e.Type == "dispute" {
			pairs = append(pairs, string(e.Hash), string(manifest.HashBytes([]byte(portsOnly.Replace(string(r.read(t, e.File)))))))
		}
	}
	for _, c := range r.cursors(t).Cursors {
		if c.ManifestSum != "" {
			pairs = append(pairs, c.ManifestSum, "manifest-of-"+c.Agent)
		}
	}
	ledger, err := ledger.Load(filepath.Join(r.dir, "mesh-state", "ledger.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range ledger.Validations {
		pairs = append(pairs, string(v.SourceHash), "bytes-of-"+portsOnly.Replace(v.SourceURL))
	}
	return strings.NewReplacer(pairs...)
}

// portRoles pairs each server's 127.0.0.1:PORT with its role, for
// strings.NewReplacer.
func (r *run) portRoles(t *testing.T) []string {
	t.Helper()
	agents, problems := roster.Parse(r.read(t, "AGENTS.md"))
	if len(problems) > 0 {
		t.Fatalf("AGENTS.md: %v", problems)
	}
	hosts := map[string]string{"node": hostOf(r.nodeURL(t))}
	for _, a := range agents {
		hosts[a.Name] = hostOf(a.URL)
	}
	if hosts["bob"] != hosts["ada"] {
		t.Fatalf("bob is on %s, ada on %s; want one host for both", hosts["bob"], hosts["ada"])
	}
	var pairs []string
	for name, role := range map[string]string{"node": "node-host", "ada": "host-a", "cyd": "host-b", "dormant": "down-host"} {
		if hosts[name] == "" {
			t.Fatalf("no URL for %s", name)
		}
		pairs = append(pairs, hosts[name], role)
	}
	return pairs
}

func hostOf(url string) string {
	rest := strings.TrimPrefix(url, "http://")
	host, _, _ := strings.Cut(rest, "/")
	return host
}
