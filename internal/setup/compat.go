package setup

import (
	"fmt"
	"net/url"
	"strings"
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
