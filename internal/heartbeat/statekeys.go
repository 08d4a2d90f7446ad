package heartbeat

import (
	"fmt"

	"github.com/meshnode/meshnode/internal/statefile"
)

// A peer's cursor, seen hashes and log pin are each kept in one file
// named by statefile.PeerFileName of its URL: a slug of the URL and 32
// bits of its sha256. Two URLs of one slug (one host, paths differing in
// punctuation) share those 32 bits for 2^16 hashes of search, and a
// gossiped URL matching a given agent's costs 2^32: then both peers' state
// went to one file and whichever Save wrote last won, replacing the
// agent's cursor (and its seen hashes and log pin, where the stranger
// serves at its URL) with a stranger's (docs/decisions.md, "One URL to a
// state file"). So the node never keeps two URLs of one state key:
// the first bound holds it (our own URL, AGENTS.md in file order, then
// the learned peers), and gossip cannot add a URL whose key is held.

// holdStateKey gives url the state key of its files, or returns the
// error of stateKeyHeld when another URL holds it.
func (n *job) holdStateKey(url string) error {
	if err := n.stateKeyHeld(url); err != nil {
		return err
	}
	if n.stateKeys == nil {
		n.stateKeys = map[string]string{}
	}
	n.stateKeys[statefile.PeerFileName(url)] = url
	return nil
}

// stateKeyHeld returns an error naming the URL that holds the state key
// of url's files, nil when none but url does.
func (n *job) stateKeyHeld(url string) error {
	key := statefile.PeerFileName(url)
	if owner, ok := n.stateKeys[key]; ok && owner != url {
		return fmt.Errorf("%s would share its state file %s with %s, known", url, key, owner)
	}
	return nil
}

// holdCursorKeys gives the state keys still free to the URLs with a
// cursor that peers did not bind (an agent a person once listed), so that
// gossip cannot add a URL sharing one's files either.
func (n *job) holdCursorKeys() {
	for _, u := range n.state.SortedURLs() {
		key := statefile.PeerFileName(u)
		if _, ok := n.stateKeys[key]; !ok {
			n.stateKeys[key] = u
		}
	}
}
