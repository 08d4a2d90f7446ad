package watch

import (
	"fmt"

	"github.com/meshnode/meshnode/internal/queue"
)

// alert tells of the inbox items not seen before, in one line, and
// forgets the items the queue no longer holds.
func (w *Watcher) alert() {
	items, err := w.queue.List()
	if err != nil {
		w.say(EventError, "read the inbox: %v", err)
		return
	}
	w.metrics.setQueue(items)
	var fresh []Item
	held := make(map[string]bool, len(items))
	for _, it := range items {
		held[it.ID] = true
		if !w.known[it.ID] {
			w.known[it.ID] = true
			fresh = append(fresh, itemOf(it))
		}
	}
	// Items the queue dropped (settled, past queue.SettledRetention) are
	// forgotten, so known never outgrows the queue.
	for id := range w.known {
		if !held[id] {
			delete(w.known, id)
		}
	}
	if len(fresh) > 0 {
		w.emit(Event{Kind: EventAlert, Items: fresh, Message: alertLine(fresh)})
	}
}

// alertLine is "inbox +3: ada/4 bob/7 cy/2", at most five names.
func alertLine(items []Item) string {
	line := fmt.Sprintf("inbox +%d:", len(items))
	for i, it := range items {
		if i == 5 {
			return line + " …"
		}
		line += fmt.Sprintf(" %s/%d", it.From, it.Seq)
	}
	return line
}

func itemOf(it queue.Item) Item {
	return Item{ID: it.ID, Type: it.Type, From: it.From, Seq: it.Seq, Status: it.Status, TraceURL: it.TraceURL}
}
