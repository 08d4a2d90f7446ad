package heartbeat

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

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

// loadFactor is how many times its percent (GOGC) the collector runs at
// while the history loads (loadThenCollect): it lets the heap grow to
// four times what a cycle found live instead of twice.
const loadFactor = 3

// loadThenCollect runs load, the load of the history, with the
// collector's percent loadFactor times what it is (raisePercent), then
// collects at collectLoaded. Each cycle the runtime runs while the
// history loads marks every record loaded so far, none of which changed
// since the cycle before, to free only the load's buffers, and the
// collection at its end marks them all again: after three years of
// 10,000 agents the cycles inside the load marked 1.5 to 2.2 GB for the
// 590 MB it holds. Fewer of them leave the load's heap below what the
// rest of the heartbeat reaches (docs/decisions.md, "The collector while
// the history loads"). A percent turned off (GOGC=off) stays off.
func loadThenCollect(load func() error) error {
	defer raisePercent()()
	if err := load(); err != nil {
		return err
	}
	collectAt(collectLoaded)
	return nil
}

// loads counts the loads running in the process (tests run heartbeats
// side by side), so that only the first raises the percent and only the
// last puts it back.
var loads struct {
	sync.Mutex
	n, percent int
}

// raisePercent raises the collector's percent for a load, and returns
// what puts it back. It is put back after the collection, which sets the
// next goal from what it finds live: put back before, it could start a
// cycle of its own that the collection would wait for and then repeat.
func raisePercent() (restore func()) {
	loads.Lock()
	defer loads.Unlock()
	if loads.n == 0 {
		loads.percent = gcPercent()
		if loads.percent > 0 {
			debug.SetGCPercent(loads.percent * loadFactor)
		}
	}
	loads.n++
	return func() {
		loads.Lock()
		defer loads.Unlock()
		if loads.n--; loads.n == 0 && loads.percent > 0 {
			debug.SetGCPercent(loads.percent)
		}
	}
}

// gcPercent is the collector's percent (GOGC) now, negative when off.
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 100 // the runtime's default, where the metric is unknown
	}
	return int(s[0].Value.Uint64())
}

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
