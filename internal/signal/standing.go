package signal

import "strings"

// Own returns the resolved status of each trace published under url (the
// node's own trace URL), by hash.
func Own(r Report, url string) map[string]string {
	out := map[string]string{}
	for _, t := range r.Traces {
		if url != "" && strings.HasPrefix(t.URL, url) {
			out[t.Hash] = t.Status
		}
	}
	return out
}

// OwnValidated counts the traces published under url that the mesh
// resolved as validated: the measure of docs/protocol.md §8.4's standing gate (a node
// validates others only once enough of its own work was validated). The
// heartbeat and the pull-request check both use it, so they never
// disagree on whether a node has standing.
func OwnValidated(r Report, url string) int {
	n := 0
	for _, s := range Own(r, url) {
		if s == StatusValidated {
			n++
		}
	}
	return n
}
