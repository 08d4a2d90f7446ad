package heartbeat

import (
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/logpin"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/state"
)

// save writes the cursors, one file per peer (internal/state). A peer
// whose cursor changed only in its poll times keeps its file, so a
// heartbeat that finds nothing new commits nothing; those times are
// written with the peer's next real change, or by a presence refresh once
// they are a day old (state.PollTimesEvery).
func (n *job) save() error {
	n.state.Hosts = hostsToState(n.client.Hosts())
	var timesBefore time.Time
	if n.refresh {
		timesBefore = n.now.Add(-state.PollTimesEvery)
	}
	changed, err := n.snap.SaveCursors(timesBefore)
	if err != nil {
		return err
	}
	pinned, err := n.pins.Save()
	if err != nil {
		return err
	}
	relayed, err := n.saveRelays()
	if err != nil {
		return err
	}
	n.sum.Changed = n.sum.Changed || changed || pinned || relayed
	return nil
}

// saveLedger writes what the node learned of its peers' files, and the
// copies of their traces first: a copy is taken only when its bytes are
// fetched, and a file once seen is not fetched again. Records past the
// ledger's window are sealed into segments first (ledger.Compact), so
// what a heartbeat rewrites follows recent activity.
func (n *job) saveLedger() error {
	if n.quiet != nil {
		return nil // nothing learned, and no quarter due to be sealed
	}
	copied, err := n.snap.SaveCopies()
	if err != nil {
		return err
	}
	if err := n.snap.Ledger.Compact(n.now); err != nil {
		return err
	}
	changed, err := n.snap.SaveLedger()
	if err != nil {
		return err
	}
	// Said once the summaries are written again, not before a save that
	// could still fail.
	n.warnRepaired()
	n.sum.Changed = n.sum.Changed || changed || copied
	return nil
}

// warnRepaired says which summaries of sealed records the ledger found
// disagreeing with their segments and read from the segments instead
// (ledger.Repaired), which the ledger's save writes again: a summary that lies
// comes from a writer's defect or a person with push rights, which its
// operator should know of.
func (n *job) warnRepaired() {
	for _, f := range n.snap.Ledger.Repaired() {
		n.log.Warn("summary disagreed with its segments: their records used instead", "file", f)
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

// reportLogs puts the peers whose signed log is refused in the summary:
// those polled, by their name. An agent a person took out of AGENTS.md
// keeps its pin, alarm and all, but no log of it is read or refused
// while it is not polled; its alarm is reported again once it is listed
// again (docs/decisions.md, "Reading a peer's signed log").
func (n *job) reportLogs(peers []peer) {
	names := make(map[string]string, len(peers))
	for _, p := range peers {
		names[p.url] = p.name
	}
	for _, p := range n.pins.Alarms() {
		name, polled := names[p.URL]
		if !polled {
			continue
		}
		n.sum.LogsRefused = append(n.sum.LogsRefused, report.LogRefused{Peer: name, URL: p.URL, Kind: p.Alarm.Kind, State: logpin.State(p)})
	}
}
