package heartbeat

import (
	"fmt"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/state"
)

// save writes the ledger and the cursors. A run that changed nothing but
// poll times leaves the cursors file alone, so a heartbeat that finds
// nothing new commits nothing; those times are written with the next real
// change or the next presence refresh (at most every few heartbeats).
func (n *node) save() error {
	n.state.Hosts = hostsToState(n.client.Hosts())
	if !n.refresh && !n.sum.Changed {
		old, err := state.Load(n.path(CursorsFile))
		if err != nil {
			return err
		}
		if onlyTimesDiffer(old, n.state) {
			return nil
		}
	}
	changed, err := n.state.Save(n.path(CursorsFile))
	if err != nil {
		return fmt.Errorf("save cursors: %w", err)
	}
	n.sum.Changed = n.sum.Changed || changed
	return nil
}

// saveLedger writes what the node learned of its peers' files.
func (n *node) saveLedger() error {
	changed, err := n.ledger.Save(n.path(LedgerFile))
	if err != nil {
		return fmt.Errorf("save ledger: %w", err)
	}
	n.sum.Changed = n.sum.Changed || changed
	return nil
}

// onlyTimesDiffer reports whether next equals prev but for the poll times
// of its cursors.
func onlyTimesDiffer(prev, next *state.State) bool {
	clone := *next
	clone.Cursors = make(map[string]*state.Cursor, len(next.Cursors))
	for url, c := range next.Cursors {
		cc := *c
		if p := prev.Cursors[url]; p != nil {
			cc.LastPolled, cc.LastSuccess = p.LastPolled, p.LastSuccess
		}
		clone.Cursors[url] = &cc
	}
	a, errA := prev.Marshal()
	b, errB := clone.Marshal()
	return errA == nil && errB == nil && string(a) == string(b)
}

// clientOptions turns the config into the fetcher's options.
func clientOptions(cfg *config.Config, version string, now func() time.Time) fetch.Options {
	if version == "" {
		version = "dev"
	}
	ua := fmt.Sprintf("meshnode/%s (+%s; agent %s)", version, cfg.URL, cfg.Agent)
	if cfg.UserAgentContact != "" {
		ua = fmt.Sprintf("meshnode/%s (+%s; agent %s; %s)", version, cfg.URL, cfg.Agent, cfg.UserAgentContact)
	}
	return fetch.Options{
		UserAgent:         ua,
		AllowPrivate:      cfg.AllowPrivateAddresses,
		Timeout:           cfg.Heartbeat.RequestTimeout,
		MaxConnsPerHost:   cfg.Heartbeat.MaxConnsPerHost,
		MaxStreamsPerHost: cfg.Heartbeat.MaxStreamsPerHost,
		RequestsPerSecond: cfg.Heartbeat.RequestsPerSecondPerHost,
		Now:               now,
	}
}

// hostsToState and hostsFromState carry the fetcher's per-host politeness
// through the cursors file, so a cooldown or a robots.txt outlives the run.
func hostsToState(hs map[string]fetch.HostState) map[string]*state.Host {
	if len(hs) == 0 {
		return nil
	}
	out := make(map[string]*state.Host, len(hs))
	for k, h := range hs {
		out[k] = &state.Host{CooldownUntil: h.CooldownUntil, CrawlDelay: h.CrawlDelay, RobotsFetched: h.RobotsFetched, Robots: h.Robots}
	}
	return out
}

func hostsFromState(s *state.State) map[string]fetch.HostState {
	out := make(map[string]fetch.HostState, len(s.Hosts))
	for k, h := range s.Hosts {
		out[k] = fetch.HostState{CooldownUntil: h.CooldownUntil, CrawlDelay: h.CrawlDelay, RobotsFetched: h.RobotsFetched, Robots: h.Robots}
	}
	return out
}
