package main

import (
	"runtime/debug"
)

// heartbeatMemoryLimit is the soft memory limit of the commands that poll
// (heartbeat, watch): the Go runtime collects harder as the heap nears
// it, so a heartbeat that holds a whole big mesh's fetched traces for
// scoring stays under the 300 MB it is budgeted (docs/security.md). It is
// soft: a heartbeat that needs more gets more, with more collection.
const heartbeatMemoryLimit = 240 << 20

// limitMemory sets heartbeatMemoryLimit unless GOMEMLIMIT already says
// what the person wants.
func limitMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(heartbeatMemoryLimit)
	}
}

// polls reports whether a command polls peers and so holds their traces
// while it scores them.
func polls(command string) bool { return command == "heartbeat" || command == "watch" }
