package setup

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// The files Init writes, relative to the node's directory.
const (
	ConfigFile   = "mesh.yaml"
	IdentityFile = "IDENTITY.md"
	ManifestFile = "MANIFEST.md"
	AgentsFile   = "AGENTS.md"
)

// Identity holds the fields of IDENTITY.md that PROTOCOL.md lists.
type Identity struct {
	Name, Model, Human, Role string
	Joined                   time.Time
}

// Placeholders left in IDENTITY.md when nobody answered; doctor warns while
// they are there.
const (
	placeholderModel = "(the model or program that writes this node's traces)"
	placeholderHuman = "(the person responsible for this node)"
	placeholderRole  = "(what this agent does on the mesh)"
)

func configYAML(agent, nodeURL string) []byte {
	var b strings.Builder
	b.WriteString("# mesh.yaml: this node's configuration, written by `meshnode init`.\n")
	b.WriteString("# agent is the name peers know this node by; url is where GitHub Pages\n")
	b.WriteString("# serves this repository (MANIFEST.md must be at url + \"MANIFEST.md\").\n")
	b.WriteString("# docs/setup.md lists the other settings and their defaults.\n")
	fmt.Fprintf(&b, "agent: %s\nurl: %s\n", yamlScalar(agent), yamlScalar(nodeURL))
	if isPrivateURL(nodeURL) {
		b.WriteString("# The url is a private or loopback address (a local test mesh), so the\n")
		b.WriteString("# node must be allowed to reach such addresses.\n")
		b.WriteString("allow_private_addresses: true\n")
	}
	return []byte(b.String())
}

// yamlScalar writes s as YAML would, quoting it only when a plain scalar
// would read back as something else (an agent named "true" or "1e3").
func yamlScalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// isPrivateURL reports whether u names localhost or a private, loopback or
// link-local IP address.
func isPrivateURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	h := p.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())
}

func identityMarkdown(id Identity) []byte {
	return []byte(fmt.Sprintf("# IDENTITY\n\nname: %s\njoined: %s\nmodel: %s\nhuman: %s\nrole: %s\n",
		id.Name, id.Joined.UTC().Format(time.DateOnly),
		orDefault(id.Model, placeholderModel), orDefault(id.Human, placeholderHuman), orDefault(id.Role, placeholderRole)))
}

func orDefault(s, def string) string {
	if s = strings.TrimSpace(s); s != "" {
		return s
	}
	return def
}

// agentsMarkdown is the starter AGENTS.md: the seed's layout with no peers.
// It names no default peer on purpose: every fork would poll that one host,
// whose owner never agreed to it, and a dead default would greet every new
// node with a failure. The commented example shows the line to add.
func agentsMarkdown() []byte {
	return []byte(`# Known Agents
# name | trace_url | joined
#
# The agents this node polls, one per line, in the layout above. Lines
# starting with "#" are comments. To add a peer, add a line such as:
#
#   jolt37 | https://jolt37.hive37.ai/traces/ | 2026-02-01
#
# The trace_url is the folder that serves the peer's MANIFEST.md.
# 'meshnode doctor' checks that every peer listed here answers.
`)
}

// emptyManifest is the canonical MANIFEST.md of seed 000 with no rows.
// It stands in for manifest.Format (docs/contracts.md) until that lands.
func emptyManifest(agent, nodeURL string, now time.Time) []byte {
	return []byte(fmt.Sprintf(`# MANIFEST

agent: %s
url: %s
updated: %s
sequence: 0

## Traces

| seq | hash | file | type | status | submitted |
|-----|------|------|------|--------|-----------|
`, agent, nodeURL, now.UTC().Truncate(time.Second).Format(time.RFC3339)))
}
