package heartbeat

import "time"

// How a heartbeat's deadline (heartbeat.deadline) is shared, so that no
// peer takes the time of the others or of scoring (docs/security.md: a
// slow host does not delay another). One peer whose 60 files dripped a
// byte every 2 s held the whole of a 60 s deadline, and no trace of any
// peer was scored, heartbeat after heartbeat.
const (
	// pollShareOf is the part of the deadline polling may use, in
	// quarters: polling stops at three quarters, and the last quarter is
	// scoring's alone (2m30s of the default 10m; scoring the real mesh's
	// new traces of a heartbeat takes seconds).
	pollShareOf = 3
	// peerShares bounds one peer's poll, manifest, files and AGENTS.md
	// together, to a quarter of polling's time (1m52s of the default):
	// at heartbeat.concurrency peers at a time, it takes four rounds of
	// stalling peers to hold every slot until polling ends.
	peerShares = 4
)

// pollWindow is how long a heartbeat with deadline d may poll.
func pollWindow(d time.Duration) time.Duration {
	return d * pollShareOf / 4
}

// peerShare is how long one peer's poll may take in a heartbeat with
// deadline d.
func peerShare(d time.Duration) time.Duration {
	return pollWindow(d) / peerShares
}
