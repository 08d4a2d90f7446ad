package watch

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
)

// inboxIDs are the IDs the watcher's queue holds, sorted.
func (h *harness) inboxIDs() []string {
	h.t.Helper()
	items, err := h.w.queue.List()
	if err != nil {
		h.t.Fatal(err)
	}
	var ids []string
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	sort.Strings(ids)
	return ids
}

// knownIDs are the watcher's known IDs, sorted. It is read between ticks,
// when Run waits on its channels.
func (h *harness) knownIDs() []string {
	var ids []string
	for id := range h.w.known {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// settleAll skips every queued item, as a person would at each alert.
func (h *harness) settleAll(alerts []Event) {
	h.t.Helper()
	for _, a := range alerts {
		for _, it := range a.Items {
			h.send("/poll skip "+it.ID+" read it", EventStatus)
		}
	}
}

// TestKnownIsPrunedToTheQueue: items the queue dropped a week after they
// were settled leave the watcher's known set too.
func TestKnownIsPrunedToTheQueue(t *testing.T) {
	ada := newPeer(t, "ada", 2)
	h := newHarness(t, "watch:\n  enabled: true\n", ada)
	h.settleAll(only(h.tick(), EventAlert))
	if k := h.knownIDs(); len(k) != 2 {
		t.Fatalf("known after the first alert: %v, want 2 IDs", k)
	}
	h.advance(queue.SettledRetention + time.Hour)
	ada.publish()
	alerts := only(h.tick(), EventAlert)
	if len(alerts) != 1 || alerts[0].Message != "inbox +1: ada/3" {
		t.Fatalf("alerts %+v, want ada/3 alone", alerts)
	}
	if k, q := h.knownIDs(), h.inboxIDs(); len(q) != 1 || len(k) != 1 || k[0] != q[0] {
		t.Fatalf("known %v, queue %v: want both to hold ada/3 alone", k, q)
	}
}

// soakSample is what the soak measures after a tick.
type soakSample struct {
	fds       int
	heap      uint64
	stateSize int64
	known     int
}

func (h *harness) sample() soakSample {
	h.t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		h.t.Skipf("no /proc/self/fd to count file descriptors: %v", err)
	}
	var size int64
	filepath.WalkDir(filepath.Join(h.dir, "mesh-state"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	return soakSample{fds: len(fds), heap: ms.HeapAlloc, stateSize: size, known: len(h.w.known)}
}

// TestSoakCompressedDays runs a watcher for eight days of 10-minute ticks
// on a fake clock (1,152 ticks): two peers, one publishing hourly for the
// first four hours, the other failing for five hours on the first day; a
// person skips each new item. From the warm-up on, the process's file
// descriptors, its heap and the size of mesh-state/ stay flat; known never
// holds more than the queue, and the queue's first write a week after
// the items were settled drops them.
func TestSoakCompressedDays(t *testing.T) {
	if testing.Short() {
		t.Skip("soak: skipped with -short")
	}
	ada, bob := newPeer(t, "ada", 1), newPeer(t, "bob", 1)
	h := newHarness(t, "watch:\n  enabled: true\n", ada, bob)
	const day = 144
	var base, first soakSample
	for i := range 8 * day {
		if i > 0 && i <= 24 && i%6 == 0 {
			ada.publish()
		}
		bob.setFailing(i >= 60 && i < 90)
		h.advance(10 * time.Minute)
		ev := h.tick()
		if len(only(ev, EventTick)) != 1 {
			t.Fatalf("tick %d did not run: %+v", i, ev)
		}
		h.settleAll(only(ev, EventAlert))
		if k, q := len(h.knownIDs()), len(h.inboxIDs()); k > q {
			t.Fatalf("tick %d: known holds %d IDs, the queue %d", i, k, q)
		}
		switch i {
		case 36:
			base = h.sample()
		case day - 1:
			first = h.sample()
		}
	}
	end := h.sample()
	for _, s := range []struct {
		when string
		soakSample
	}{{"warm-up (6 h)", base}, {"1 day", first}, {"8 days", end}} {
		t.Logf("%-13s %d fds, heap %.2f MB, mesh-state %d bytes, known %d", s.when+":", s.fds, mb(s.heap), s.stateSize, s.known)
	}
	// The ticks polled: a soak of idle ticks would prove nothing.
	if n := ada.count(); n < 8*day {
		t.Errorf("ada got %d requests in %d ticks, want one a tick at least", n, 8*day)
	}
	if first.known != 6 {
		t.Errorf("known holds %d IDs after a day, want the 6 traces queued", first.known)
	}
	for _, s := range []soakSample{first, end} {
		if s.fds > base.fds+2 {
			t.Errorf("file descriptors grew from %d to %d", base.fds, s.fds)
		}
		if s.heap > base.heap+4<<20 {
			t.Errorf("heap grew from %.1f MB to %.1f MB", mb(base.heap), mb(s.heap))
		}
		if s.stateSize > base.stateSize+2048 {
			t.Errorf("mesh-state grew from %d to %d bytes with nothing new", base.stateSize, s.stateSize)
		}
	}
	t.Logf("requests: ada %d, bob %d", ada.count(), bob.count())
	// Settled items past their week leave at the queue's next write, never
	// in a write of their own (docs/decisions.md, "A quiet heartbeat"):
	// a new trace makes one.
	ada.publish()
	h.advance(10 * time.Minute)
	h.settleAll(only(h.tick(), EventAlert))
	if q := h.inboxIDs(); len(h.knownIDs()) > 1 || len(q) != 1 {
		t.Errorf("after the first write a week past settling: known %v, queue %v; want the new item alone", h.knownIDs(), q)
	}
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }
