package config

import (
	"fmt"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
)

// DefaultDirectPoll is relays.direct_poll's default: an agent a relay
// lists as unchanged is still polled directly once a day
// (docs/decisions.md, "Relays").
const DefaultDirectPoll = 24 * time.Hour

// Relays are the relays the node reads (docs/decisions.md, "Relays").
type Relays struct {
	// List holds each relay as "URL KEY" (ParseRelay; Each).
	List []string
	// DirectPoll is the longest an agent a relay vouches for goes
	// without a direct poll: the most a relay that withholds it delays it.
	DirectPoll time.Duration
}

// Relay is one relay: its base URL and its log's verifier key.
type Relay struct {
	URL string
	Key string
}

// relayKeys are the keys of the relays section.
var relayKeys = key{name: "relays", doc: "relays the node reads agents' checkpoints through, so that it polls directly only agents that changed (docs/decisions.md, Relays)", sub: []key{
	leaf("list", `each relay as "URL KEY": its base URL and its log's verifier key, named the URL without its scheme`, []string(nil),
		func(c *Config) *[]string { return &c.Relays.List }, parseRelayList, show[[]string]),
	leaf("direct_poll", "an agent a relay lists as unchanged is still polled directly this often: the most a relay that withholds an agent delays it", DefaultDirectPoll,
		func(c *Config) *time.Duration { return &c.Relays.DirectPoll }, parseDuration(30*time.Minute, 30*24*time.Hour), showDuration),
}}

// parseRelayList is parseStringList whose every item is "URL KEY", the
// key a signed-note verifier key named the URL without its scheme.
func parseRelayList(n *nodeRef) ([]string, error) {
	list, err := parseStringList(n)
	if err != nil {
		return nil, err
	}
	for i, s := range list {
		if _, err := ParseRelay(s); err != nil {
			return nil, &lineError{line: n.Content[i].Line, path: fmt.Sprintf("%s[%d]", n.path, i), msg: err.Error()}
		}
	}
	return list, nil
}

// ParseRelay reads an item of relays.list.
func ParseRelay(s string) (Relay, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return Relay{}, fmt.Errorf(`must be "URL KEY", got %d words`, len(f))
	}
	u, err := normalizeURL(f[0])
	if err != nil {
		return Relay{}, fmt.Errorf("relay url: %w", err)
	}
	v, err := note.NewVerifier(f[1])
	if err != nil {
		return Relay{}, fmt.Errorf("relay key: %w", err)
	}
	if want := strings.TrimSuffix(strings.SplitN(u, "://", 2)[1], "/"); v.Name() != want {
		return Relay{}, fmt.Errorf("relay key is named %q, not the relay's url without its scheme %q", v.Name(), want)
	}
	return Relay{URL: u, Key: f[1]}, nil
}

// Each returns the relays of List, parsed; an item that does not parse
// (Load refused it already) is left out.
func (r Relays) Each() []Relay {
	out := make([]Relay, 0, len(r.List))
	for _, s := range r.List {
		if rl, err := ParseRelay(s); err == nil {
			out = append(out, rl)
		}
	}
	return out
}
