package setup

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// The files Init writes, relative to the node's directory.
const (
	ConfigFile   = node.ConfigFile
	IdentityFile = node.IdentityFile
	ManifestFile = node.ManifestFile
	AgentsFile   = node.AgentsFile
)

// identity holds the fields of IDENTITY.md that docs/protocol.md §2 lists.
type identity struct {
	Name, Model, Human, Role string
	Joined                   time.Time
	// LogKey is the verifier key of the node's signed log
	// (translog.IdentityKey).
	LogKey string
}

// blank names the free fields nobody filled in, in IDENTITY.md's order.
func (id identity) blank() []string {
	var b []string
	for _, f := range []struct{ name, value string }{{"model", id.Model}, {"human", id.Human}, {"role", id.Role}} {
		if strings.TrimSpace(f.value) == "" {
			b = append(b, f.name)
		}
	}
	return b
}

// Placeholders left in IDENTITY.md when nobody answered; doctor warns while
// they are there.
const (
	placeholderModel = "(the model or program that writes this node's traces)"
	placeholderHuman = "(the person responsible for this node)"
	placeholderRole  = "(what this agent does on the mesh)"
)

// configYAML is a minimal mesh.yaml through config.Marshal, so that init
// writes exactly the keys and comments config reads. A local URL (a test
// mesh on loopback) turns on allow_private_addresses, without which the
// node could not fetch its own pages.
func configYAML(agent, nodeURL string) []byte {
	c := config.Default()
	c.Agent, c.URL = agent, nodeURL
	c.AllowPrivateAddresses = isPrivateURL(nodeURL)
	return config.Marshal(c)
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

func identityMarkdown(id identity) []byte {
	text := fmt.Sprintf("# IDENTITY\n\nname: %s\njoined: %s\nmodel: %s\nhuman: %s\nrole: %s\n",
		id.Name, id.Joined.UTC().Format(time.DateOnly),
		orDefault(id.Model, placeholderModel), orDefault(id.Human, placeholderHuman), orDefault(id.Role, placeholderRole))
	if id.LogKey != "" {
		text += translog.IdentityKey + ": " + id.LogKey + "\n"
	}
	return []byte(text)
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

// emptyManifest is the canonical MANIFEST.md of docs/protocol.md §3.1 with no rows.
func emptyManifest(agent, nodeURL string, now time.Time) []byte {
	m := &manifest.Manifest{Agent: agent, URL: nodeURL, Updated: now.UTC().Truncate(time.Second)}
	return m.Format()
}
