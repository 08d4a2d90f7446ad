package config

import (
	"fmt"
	"time"
)

// Defaults and bounds. The seeds give the lease; the rest are this node's
// choices, explained in docs/config.md.
const (
	// DefaultLease is docs/protocol.md §12.3's "lease default 2m"; docs/protocol.md §12 recommends
	// leases of 30–120 s.
	DefaultLease = 2 * time.Minute
	// DefaultDeadline keeps a heartbeat well inside the 30-minute interval
	// of docs/protocol.md §1, so two heartbeats never overlap.
	DefaultDeadline = 10 * time.Minute
	// DefaultQuietAfter, DefaultMaxInterval and DefaultSpikeFactor are the
	// adaptive schedule's (docs/decisions.md): quiet for 2 hours, a peer is
	// polled every hour at 4 hours, every 6 hours from a day on; a spike is
	// 3× the 7-day average (docs/protocol.md §11.5).
	DefaultQuietAfter  = 2 * time.Hour
	DefaultMaxInterval = 6 * time.Hour
	DefaultSpikeFactor = 3.0
	// DefaultWatchInterval is how often `meshnode watch` ticks: a person at
	// a terminal hears of new traces within minutes, and a peer polled by
	// a few such nodes still sees few requests thanks to conditional GETs.
	DefaultWatchInterval = 10 * time.Minute
)

// key is one mesh.yaml key: a mapping of sub keys or a leaf value.
type key struct {
	name string
	doc  string // one line for docs/config.md and Marshal's comments
	sub  []key
	leaf *leafKey
}

// leafKey decodes, encodes and defaults one value.
type leafKey struct {
	def        string // the default as docs/config.md shows it
	decode     func(c *Config, n *nodeRef) error
	encode     func(c *Config) any // the value as mesh.yaml writes it
	setDefault func(c *Config)
}

func (k key) setDefault(c *Config) {
	if k.leaf != nil {
		k.leaf.setDefault(c)
	}
	for _, s := range k.sub {
		s.setDefault(c)
	}
}

// keys is every mesh.yaml key, in the order Marshal and the reference use.
var keys = []key{
	leaf("agent", "the name peers know this node by (required)", "",
		func(c *Config) *string { return &c.Agent }, parseAgent, show[string]),
	docDefault("from GITHUB_REPOSITORY", leaf("url", "this node's trace URL, where its MANIFEST.md is served (required unless GITHUB_REPOSITORY is set)", "",
		func(c *Config) *string { return &c.URL }, parseURL, show[string])),
	leaf("scorer", "how the node scores others' traces: heuristic, command (runs scorer_command) or manual (a person scores)", ScorerHeuristic,
		func(c *Config) *string { return &c.Scorer }, parseEnum(ScorerHeuristic, ScorerCommand, ScorerManual), show[string]),
	leaf("scorer_command", "the command run by the command scorer, as a list: program then arguments", []string(nil),
		func(c *Config) *[]string { return &c.ScorerCommand }, parseStringList, show[[]string]),
	leaf("scorer_timeout", "how long one run of scorer_command may take", 60*time.Second,
		func(c *Config) *time.Duration { return &c.ScorerTimeout }, parseDuration(time.Second, time.Hour), showDuration),
	leaf("scorer_concurrency", "traces scored at the same time (runs of scorer_command, or heuristic scorings spread over the cores)", 4,
		func(c *Config) *int { return &c.ScorerConcurrency }, parseInt(1, 64), show[int]),
	leaf("lease", "how long a claim on a queued trace lasts before another run may take it over (docs/protocol.md §12.3)", DefaultLease,
		func(c *Config) *time.Duration { return &c.Lease }, parseDuration(time.Second, time.Hour), showDuration),
	leaf("allow_private_addresses", "let the agents of AGENTS.md resolve to loopback and private addresses (tests, a LAN mesh); off guards against SSRF; link-local and cloud metadata addresses (169.254.0.0/16, fe80::/10, fd00:ec2::254, 100.100.100.200) are refused either way", false,
		func(c *Config) *bool { return &c.AllowPrivateAddresses }, parseBool, show[bool]),
	{name: "heartbeat", doc: "bounds of one heartbeat", sub: []key{
		leaf("deadline", "the whole heartbeat claims no more traces to score after this long; polling stops at three quarters of it, leaving scoring the last quarter, and one peer's poll at a quarter of polling's time", DefaultDeadline,
			func(c *Config) *time.Duration { return &c.Heartbeat.Deadline }, parseDuration(time.Second, 6*time.Hour), showDuration),
		leaf("request_timeout", "one HTTP request's timeout", 20*time.Second,
			func(c *Config) *time.Duration { return &c.Heartbeat.RequestTimeout }, parseDuration(100*time.Millisecond, 10*time.Minute), showDuration),
		leaf("concurrency", "peers polled at the same time", 64,
			func(c *Config) *int { return &c.Heartbeat.Concurrency }, parseInt(1, 256), show[int]),
		leaf("max_conns_per_host", "requests in flight to one host at most over HTTP/1.1, each on its own connection", 4,
			func(c *Config) *int { return &c.Heartbeat.MaxConnsPerHost }, parseInt(1, 64), show[int]),
		leaf("max_streams_per_host", "requests in flight to one host at most once it answers over HTTP/2, as streams of one connection (never below max_conns_per_host)", 16,
			func(c *Config) *int { return &c.Heartbeat.MaxStreamsPerHost }, parseInt(1, 256), show[int]),
		leaf("requests_per_second_per_host", "request rate to one host; 0 means no limit beyond max_conns_per_host", 0.0,
			func(c *Config) *float64 { return &c.Heartbeat.RequestsPerSecondPerHost }, parseFloat(0, 1000), show[float64]),
	}},
	{name: "polling", doc: "how often peers that answer are polled: every heartbeat while they publish, less often while they are quiet (docs/decisions.md)", sub: []key{
		leaf("quiet_after", "a peer with no new seq for longer than this is polled less often, its interval growing with its quiet time (heartbeat × quiet / quiet_after); 0 polls every peer every heartbeat", DefaultQuietAfter,
			func(c *Config) *time.Duration { return &c.Polling.QuietAfter }, parseOffOrDuration(30*time.Minute, 7*24*time.Hour), showDuration),
		leaf("max_interval", "a quiet peer is still polled at least this often", DefaultMaxInterval,
			func(c *Config) *time.Duration { return &c.Polling.MaxInterval }, parseDuration(30*time.Minute, 24*time.Hour), showDuration),
		leaf("spike_factor", "a day with this many times a peer's 7-day daily average of new seqs (and at least 3) is a spike: flagged, and polled every heartbeat that day", DefaultSpikeFactor,
			func(c *Config) *float64 { return &c.Polling.SpikeFactor }, parseFloat(1.5, 100), show[float64]),
	}},
	{name: "gossip", doc: "learning peers from the AGENTS.md of the peers polled", sub: []key{
		leaf("enabled", "read peers' AGENTS.md and poll the agents they list", true,
			func(c *Config) *bool { return &c.Gossip.Enabled }, parseBool, show[bool]),
		leaf("max_new_peers_per_heartbeat", "new peers learned in one heartbeat at most", 20,
			func(c *Config) *int { return &c.Gossip.MaxNewPeersPerHeartbeat }, parseInt(0, 10_000), show[int]),
		leaf("max_peers", "known peers at most; gossip stops adding beyond it", 500,
			func(c *Config) *int { return &c.Gossip.MaxPeers }, parseInt(1, 100_000), show[int]),
		leaf("allow_private_addresses", "let peers learned by gossip resolve to loopback and private addresses too, as allow_private_addresses lets the agents of AGENTS.md; off, a gossiped agent is polled on public addresses only", false,
			func(c *Config) *bool { return &c.Gossip.AllowPrivateAddresses }, parseBool, show[bool]),
	}},
	{name: "limits", doc: "bytes read from a peer at most, per file", sub: []key{
		leaf("manifest_bytes", "a MANIFEST.md", int64(4<<20),
			func(c *Config) *int64 { return &c.Limits.ManifestBytes }, parseInt64(1<<10, 1<<30), show[int64]),
		leaf("trace_bytes", "a trace or validation file", int64(1<<20),
			func(c *Config) *int64 { return &c.Limits.TraceBytes }, parseInt64(1<<10, 1<<30), show[int64]),
		leaf("agents_bytes", "an AGENTS.md", int64(256<<10),
			func(c *Config) *int64 { return &c.Limits.AgentsBytes }, parseInt64(1<<10, 1<<30), show[int64]),
	}},
	{name: "watch", doc: "`meshnode watch`, the long-running node (docs/watch.md)", sub: []key{
		leaf("enabled", "poll the mesh; off until a person turns it on here or with /poll on", false,
			func(c *Config) *bool { return &c.Watch.Enabled }, parseBool, show[bool]),
		leaf("interval", "time between two heartbeats of a watching node", DefaultWatchInterval,
			func(c *Config) *time.Duration { return &c.Watch.Interval }, parseDuration(time.Second, 24*time.Hour), showDuration),
	}},
	relayKeys,
	leaf("user_agent_contact", "a contact (URL or e-mail) added to the User-Agent, so peers' operators can reach you", "",
		func(c *Config) *string { return &c.UserAgentContact }, parseContact, show[string]),
}

// removed are keys mesh.yaml once had, with what replaced them: a node
// that still sets one is told so rather than told of an unknown key.
var removed = map[string]string{
	"standing": "removed: whether a node may validate (its standing) is decided from public files every node reads alike " +
		"(FOUNDERS.md and SIGNAL), never from mesh.yaml; delete this key, and name a new mesh's founders in FOUNDERS.md (docs/config.md, Standing)",
	"signal": "removed: SIGNAL is computed from public files only; founders start at SIGNAL 50 by being named in FOUNDERS.md; " +
		"delete this key (docs/config.md, Standing)",
}

// leaf builds a leaf key of type T stored at get(c).
func leaf[T any](name, doc string, def T, get func(*Config) *T, parse func(*nodeRef) (T, error), enc func(T) any) key {
	return key{name: name, doc: doc, leaf: &leafKey{
		def: formatDefault(enc(def)),
		decode: func(c *Config, n *nodeRef) error {
			v, err := parse(n)
			if err == nil {
				*get(c) = v
			}
			return err
		},
		encode:     func(c *Config) any { return enc(*get(c)) },
		setDefault: func(c *Config) { *get(c) = def },
	}}
}

func show[T any](v T) any { return v }

func showDuration(d time.Duration) any { return formatDuration(d) }

// formatDuration writes d in the largest whole unit: 2m, not 2m0s.
func formatDuration(d time.Duration) string {
	switch {
	case d != 0 && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d != 0 && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// docDefault replaces the default docs/config.md shows for k.
func docDefault(text string, k key) key {
	k.leaf.def = text
	return k
}
