package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/peertext"
	"github.com/meshnode/meshnode/internal/statefile"
)

// runRepin is `meshnode peers repin NAME`: under the node's lock, it
// forgets the log key and checkpoint pinned for the agent named (or at
// the URL given), keeps its alarm as evidence in the pin, and says what
// it dropped.
func runRepin(w io.Writer, dir, who string, now time.Time) error {
	snap, err := node.Open(dir, node.Options{})
	if err != nil {
		return err
	}
	url, name := "", ""
	for _, k := range snap.Known("") {
		if k.Name == who || k.URL == who {
			url, name = k.URL, k.Name
		}
	}
	if url == "" {
		return usagef("run 'meshnode peers' for the agents this node knows", "peers repin: no agent %q", who)
	}
	unlock, err := node.Lock(dir)
	if errors.Is(err, node.ErrLocked) {
		return usagef("try again when it has ended", "peers repin: a heartbeat holds the node (%s)", node.LockHolder(dir))
	}
	if err != nil {
		return err
	}
	defer unlock()
	pins, err := logpin.Load(filepath.Join(dir, node.LogPinsFile))
	if err != nil {
		return err
	}
	was := pins.Repin(url, now)
	if was == nil {
		return usagef("only a peer read through its signed log has a pin", "peers repin: %s (%s) reads no log: nothing to re-pin", name, url)
	}
	if _, err := pins.Save(); err != nil {
		return err
	}
	fmt.Fprintf(w, "re-pinned %s (%s): dropped key %s and its checkpoint\n", name, url, peertext.Clean(orNone(was.Key)))
	if was.Alarm != nil {
		fmt.Fprintf(w, "its %s alarm and the evidence stay in %s/\n", was.Alarm.Kind, statefile.Dir(node.LogPinsFile))
	}
	fmt.Fprintln(w, "the next heartbeat pins the key its IDENTITY.md then publishes and reads its log from the start")
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
