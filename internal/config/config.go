package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/meshnode/meshnode/internal/node"
)

// FileName is the configuration file at the node's root.
const FileName = node.ConfigFile

// TemplateMarker marks the placeholder files the template repository ships
// (mesh.yaml, IDENTITY.md, MANIFEST.md, AGENTS.md) until 'meshnode init'
// replaces them, which it does without --force.
const TemplateMarker = "meshnode:template"

// IsTemplate reports whether data is one of the template's placeholders:
// the marker stands in its first lines (the placeholders put it there), so
// a node's own file that merely mentions the marker further down is never
// taken for one, and never overwritten by init without --force.
func IsTemplate(data []byte) bool {
	return bytes.Contains(data[:min(len(data), templateHead)], []byte(TemplateMarker))
}

// templateHead is how far into a file IsTemplate looks for the marker.
const templateHead = 256

// Scorers.
const (
	ScorerHeuristic = "heuristic"
	ScorerCommand   = "command"
	ScorerManual    = "manual"
)

// Config is the content of mesh.yaml, with defaults applied.
type Config struct {
	Agent                 string // the name peers know this node by
	URL                   string // the node's trace URL, ending in "/"
	Scorer                string // ScorerHeuristic, ScorerCommand or ScorerManual
	ScorerCommand         []string
	ScorerTimeout         time.Duration
	ScorerConcurrency     int           // traces scored at the same time
	Lease                 time.Duration // how long a queue claim lasts
	AllowPrivateAddresses bool
	Heartbeat             Heartbeat
	Polling               Polling
	Gossip                Gossip
	Limits                Limits
	Watch                 Watch
	Relays                Relays
	UserAgentContact      string // optional contact added to the User-Agent
}

// Heartbeat bounds one heartbeat.
type Heartbeat struct {
	Deadline                 time.Duration
	RequestTimeout           time.Duration
	Concurrency              int
	MaxConnsPerHost          int     // requests in flight per host over HTTP/1.1
	MaxStreamsPerHost        int     // requests in flight per host over HTTP/2
	RequestsPerSecondPerHost float64 // 0: no rate limit beyond the connection cap
}

// Polling is the adaptive schedule of peers that answer.
type Polling struct {
	QuietAfter  time.Duration // 0: every peer every heartbeat
	MaxInterval time.Duration
	SpikeFactor float64
}

// Watch is `meshnode watch`, the long-running node (docs/watch.md).
type Watch struct {
	Enabled  bool          // poll at all; off until a person turns it on
	Interval time.Duration // between two ticks
}

// Gossip bounds what the node learns from peers' AGENTS.md.
type Gossip struct {
	Enabled                 bool
	MaxNewPeersPerHeartbeat int
	MaxPeers                int
	// AllowPrivateAddresses lets learned peers reach what
	// Config.AllowPrivateAddresses lets the listed ones reach; the owner
	// vouches for AGENTS.md, never for what a peer gossips.
	AllowPrivateAddresses bool
}

// Limits caps the bytes read from a peer, per file kind.
type Limits struct {
	ManifestBytes int64
	TraceBytes    int64
	AgentsBytes   int64
}

// Default returns the configuration with every default set and no agent or
// URL.
func Default() *Config {
	c := &Config{}
	for _, k := range keys {
		k.setDefault(c)
	}
	return c
}

// Option changes how Load reads the configuration.
type Option func(*options)

type options struct {
	lookupEnv func(string) (string, bool)
}

// WithLookupEnv replaces os.LookupEnv, so tests need not set process env.
func WithLookupEnv(f func(string) (string, bool)) Option {
	return func(o *options) { o.lookupEnv = f }
}

// Load reads DIR/mesh.yaml, applies defaults and validates it. A missing
// file, an unknown key, a bad value or a missing agent or url give an
// *Error naming the file, line and key.
func Load(dir string, opts ...Option) (*Config, error) {
	o := options{lookupEnv: os.LookupEnv}
	for _, f := range opts {
		f(&o)
	}
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{File: path, Problems: []Problem{{Msg: "not found"}},
			Hint: "run 'meshnode init' to create one, or pass --dir to point at the node"}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return Parse(path, data, o.lookupEnv)
}

// Parse decodes and validates mesh.yaml bytes; name is used in messages.
// lookupEnv may be nil (no environment).
func Parse(name string, data []byte, lookupEnv func(string) (string, bool)) (*Config, error) {
	if lookupEnv == nil {
		lookupEnv = func(string) (string, bool) { return "", false }
	}
	if IsTemplate(data) {
		return nil, &Error{File: name, Problems: []Problem{{Msg: "is the template's placeholder, not a node's config"}},
			Hint: "run 'meshnode init' to make this repository your node"}
	}
	c := Default()
	d := &decoder{}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		d.add(0, "", strings.TrimPrefix(err.Error(), "yaml: "))
		return nil, d.err(name)
	}
	if len(doc.Content) > 0 {
		d.mapping(c, doc.Content[0], "", keys)
	}
	if len(d.problems) == 0 {
		d.finish(c, lookupEnv)
	}
	if len(d.problems) > 0 {
		return nil, d.err(name)
	}
	return c, nil
}
