package heartbeat

import "runtime"

// Points of a heartbeat with news at which it runs the collector
// (collectAt): each follows a step whose garbage is large and ends where
// what the heartbeat holds is at its least for the steps that follow.
const (
	// collectLoaded: the history is loaded, the load's buffers and
	// decoding let go of.
	collectLoaded = "history loaded"
	// collectGathered: SIGNAL's input is gathered, our files' parses let
	// go of, before SIGNAL builds its mesh.
	collectGathered = "input gathered"
	// collectComputed: SIGNAL is computed and its mesh let go of.
	collectComputed = "signal computed"
)

// collectAt runs the collector at point, one of the points above. The
// runtime lets the heap grow to twice what its last cycle found live
// before it collects again; a cycle that falls by chance inside the
// load, or while SIGNAL's mesh and report are live together, finds far
// more live than the heartbeat holds after it, and lets the heap grow to
// twice that (docs/decisions.md, "Memory"). A cycle at each of these
// points sets the next goal from what the heartbeat goes on holding, and
// takes the place of the cycle the runtime would have run inside the
// step that follows.
func collectAt(point string) {
	runtime.GC()
	if collected != nil {
		collected(point)
	}
}

// collected, when set (tests only), is told each point at which a
// heartbeat ran the collector.
var collected func(point string)
