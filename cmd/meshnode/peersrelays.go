package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/peertext"
	"github.com/meshnode/meshnode/internal/relay"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/statefile"
)

// relayRow is one relay of relays.list as `peers` shows it: its status as
// the heartbeat's summary judges it (relay.View.StatusOf), for a faulted
// relay the file that holds the evidence, and the faults forgiven.
type relayRow struct {
	relay.Status
	// Unread: the node holds nothing of it under this key yet but the
	// faults forgiven.
	Unread bool
	// Evidence is the relay's state file, path under the node's
	// directory, when it is faulted.
	Evidence string
	// Forgiven counts the faults forgiven that its state keeps
	// (relay.Held.Resolved), the last forgiven at LastForgiven.
	Forgiven     int
	LastForgiven time.Time
}

// relaysFile is where the node keeps what it holds of the relay at url:
// its shard of relays/ and its key there (statefile.PeerRef).
func relaysFile(url string) string {
	return filepath.ToSlash(statefile.PeerRef(node.RelaysFile, url))
}

// configRelays are the relays of mesh.yaml's relays.list.
func configRelays(cfg *config.Config) []relay.Relay {
	list := cfg.Relays.Each()
	out := make([]relay.Relay, len(list))
	for i, r := range list {
		out[i] = relay.Relay{URL: r.URL, Key: r.Key}
	}
	return out
}

// listRelays judges each relay of relays.list from what the node holds
// (mesh-state/relays/), as the next heartbeat would start from: faulted,
// lagging behind another relay or a direct poll, or ok. It reads only.
func listRelays(dir string, cfg *config.Config, pins *logpin.Pins, cursors *state.State, now time.Time) ([]relayRow, error) {
	rs := configRelays(cfg)
	if len(rs) == 0 {
		return nil, nil
	}
	store, err := relay.LoadStore(filepath.Join(dir, node.RelaysFile))
	if err != nil {
		return nil, err
	}
	store.Keep(rs)
	held := make([]*relay.Held, len(rs))
	for i, r := range rs {
		held[i] = store.Held(r)
	}
	cursor := func(url string) *state.Cursor { return cursors.Cursors[url] }
	view := relay.NewView(store.All(), pins, cursor, cfg.Relays.DirectPoll, now)
	out := make([]relayRow, len(rs))
	for i, h := range held {
		out[i] = relayRow{Status: view.StatusOf(h), Unread: h.Checkpoint == "" && h.Fault == nil}
		if h.Fault != nil {
			out[i].Evidence = relaysFile(h.URL)
		}
		if n := len(h.Resolved); n > 0 {
			out[i].Forgiven, out[i].LastForgiven = n, h.Resolved[n-1].Forgiven
		}
	}
	return out, nil
}

// printRelays writes a line for each relay under the peers table.
func printRelays(w io.Writer, rows []relayRow) {
	for _, r := range rows {
		switch {
		case r.Unread:
			fmt.Fprintf(w, "relay: %s: not read yet%s\n", r.URL, r.forgiven())
		case r.State == relay.StateFaulted:
			// A fault quotes what the relay served (an agent's key's name
			// may hold bidirectional controls).
			fmt.Fprintf(w, "relay: %s: faulted (%s); read %d of %d entries; evidence in %s; once checked, run meshnode peers forgive-relay %s%s\n",
				r.URL, peertext.Clean(r.Fault), r.Read, r.Size, r.Evidence, r.URL, r.forgiven())
		default:
			fmt.Fprintf(w, "relay: %s: %s; read %d of %d entries; %d agents listed%s\n", r.URL, r.State, r.Read, r.Size, r.Agents, r.forgiven())
		}
	}
}

// forgiven is how often r was forgiven, as its line ends: "" when never.
func (r relayRow) forgiven() string {
	switch r.Forgiven {
	case 0:
		return ""
	case 1:
		return "; forgiven once, " + r.LastForgiven.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("; forgiven %d times, last %s", r.Forgiven, r.LastForgiven.UTC().Format(time.RFC3339))
}

// runForgiveRelay is `meshnode peers forgive-relay URL`: under the node's
// lock, it drops what the node holds of a faulted relay, so that the next
// heartbeat reads the relay from the start as a new one, and keeps the
// fault, with its evidence and the time now, among the relay's resolved
// faults (relay.Store.Forgive).
func runForgiveRelay(w io.Writer, dir, url string, cfg *config.Config, now time.Time) error {
	u, err := roster.NormalizeURL(url)
	if err != nil {
		return usagef("give the relay's URL as relays.list names it", "peers forgive-relay: %v", err)
	}
	var r *relay.Relay
	for _, c := range configRelays(cfg) {
		if c.URL == u {
			r = &c
		}
	}
	if r == nil {
		return usagef("run 'meshnode peers' for the relays mesh.yaml's relays.list names", "peers forgive-relay: %s is not in relays.list", u)
	}
	unlock, err := node.Lock(dir)
	if errors.Is(err, node.ErrLocked) {
		return usagef("try again when it has ended", "peers forgive-relay: a heartbeat holds the node (%s)", node.LockHolder(dir))
	}
	if err != nil {
		return err
	}
	defer unlock()
	store, err := relay.LoadStore(filepath.Join(dir, node.RelaysFile))
	if err != nil {
		return err
	}
	f := store.Forgive(*r, now)
	if f == nil {
		return usagef("only a faulted relay is forgiven: run 'meshnode peers' for its state", "peers forgive-relay: %s is not faulted", u)
	}
	if _, err := store.Save(); err != nil {
		return err
	}
	fmt.Fprintf(w, "forgave relay %s: its %s fault of %s (%s)\n", u, f.Kind, f.At.UTC().Format(time.RFC3339), peertext.Clean(f.Detail))
	fmt.Fprintf(w, "the fault and its evidence stay in %s, among its resolved faults\n", relaysFile(u))
	fmt.Fprintln(w, "the next heartbeat reads the relay from the start, as a new one; if it still serves what it was faulted for, it is faulted again")
	return nil
}
