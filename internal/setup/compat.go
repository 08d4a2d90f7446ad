package setup

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// normalizeURL checks a trace URL and gives it its canonical form: http or
// https, a host, no query or fragment, a path ending in "/".
// It stands in for roster.NormalizeURL (docs/contracts.md) until that lands.
func normalizeURL(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("url %q: %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("url %q: scheme must be http or https", s)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("url %q: want scheme://host/path/ with no user, query or fragment", s)
	}
	u.Host = strings.ToLower(u.Host)
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		u.RawPath = ""
	}
	return u.String(), nil
}

// nodeConfig is the part of mesh.yaml doctor needs.
type nodeConfig struct {
	Agent                 string `yaml:"agent"`
	URL                   string `yaml:"url"`
	AllowPrivateAddresses bool   `yaml:"allow_private_addresses"`
}

// loadConfig reads DIR/mesh.yaml. It stands in for config.Load
// (docs/contracts.md) until that lands.
func loadConfig(dir string) (*nodeConfig, error) {
	data, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, err
	}
	var c nodeConfig
	if err := yaml.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("parse %s: %w", ConfigFile, err)
	}
	if err := ValidateAgent(c.Agent); err != nil {
		return nil, fmt.Errorf("%s: agent: %w", ConfigFile, err)
	}
	if c.URL, err = normalizeURL(c.URL); err != nil {
		return nil, fmt.Errorf("%s: url: %w", ConfigFile, err)
	}
	return &c, nil
}

// manifestRow is one row of a MANIFEST.md table.
type manifestRow struct {
	Seq        int
	Hash, File string
}

// localManifest is what doctor reads of MANIFEST.md.
type localManifest struct {
	Agent, URL string
	Rows       []manifestRow
}

// parseManifest reads the canonical MANIFEST.md layout. It stands in for
// manifest.Parse (docs/contracts.md) until that lands.
func parseManifest(data []byte) (*localManifest, error) {
	m := &localManifest{}
	header := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(strings.ToUpper(line), "# MANIFEST") {
			header = true
		}
		if v, ok := strings.CutPrefix(line, "agent:"); ok {
			m.Agent = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "url:"); ok {
			m.URL = strings.TrimSpace(v)
		}
		if row, ok := parseRow(line); ok {
			m.Rows = append(m.Rows, row)
		}
	}
	if !header {
		return nil, fmt.Errorf("no \"# MANIFEST\" title: not a manifest")
	}
	return m, nil
}

func parseRow(line string) (manifestRow, bool) {
	if !strings.HasPrefix(line, "|") {
		return manifestRow{}, false
	}
	cells := strings.Split(strings.Trim(line, "|"), "|")
	if len(cells) < 3 {
		return manifestRow{}, false
	}
	seq, err := strconv.Atoi(strings.TrimSpace(cells[0]))
	if err != nil {
		return manifestRow{}, false
	}
	return manifestRow{Seq: seq, Hash: strings.TrimSpace(cells[1]), File: strings.TrimSpace(cells[2])}, true
}

// peer is one line of AGENTS.md.
type peer struct{ Name, URL string }

// parsePeers reads the seed's pipe layout and the table layout of
// AGENTS.md. It stands in for roster.Parse (docs/contracts.md) until that
// lands.
func parsePeers(data []byte) []peer {
	var out []peer
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 {
			continue
		}
		u, err := normalizeURL(strings.TrimSpace(cells[1]))
		if err != nil {
			continue
		}
		out = append(out, peer{Name: strings.TrimSpace(cells[0]), URL: u})
	}
	return out
}

// hashBytes is manifest.HashBytes (docs/contracts.md) until that lands.
func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
