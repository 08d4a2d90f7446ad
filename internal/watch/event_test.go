package watch

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestTextShowsAlertsAndTheStatusLineButNotIdleTicks(t *testing.T) {
	var b bytes.Buffer
	sink := Text(&b)
	at := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	sink(Event{Time: at, Kind: EventOff, Message: "tick: polling is off"})
	sink(Event{Time: at, Kind: EventAlert, Message: "inbox +2: ada/4 bob/1"})
	sink(Event{Time: at, Kind: EventStatus, Status: &Status{Polling: true, Interval: "10m0s", NextTick: at, Inbox: 3, Degraded: []string{"cy"}}})
	sink(Event{Time: at, Kind: EventInbox, Items: []Item{{ID: "3f2a9c01b7de", From: "ada", Status: "queued", TraceURL: "https://ada.example/traces/4.md"}}})
	out := b.String()
	for _, want := range []string{"inbox +2: ada/4 bob/1\n", "[polling on, every 10m0s · next ", " · inbox 3 · degraded: cy]\n",
		"3f2a9c01b7de  -     ada   queued  https://ada.example/traces/4.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "polling is off") {
		t.Errorf("an idle tick was printed:\n%s", out)
	}
}

func TestJSONLinesWritesOneObjectPerEvent(t *testing.T) {
	var b bytes.Buffer
	sink := JSONLines(&b)
	sink(Event{Kind: EventDegraded, Peer: "bob", URL: "http://bob/", Message: "degraded: bob"})
	sink(Event{Kind: EventOff, Message: "tick: polling is off"})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), b.String())
	}
	var e Event
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil || e.Kind != EventDegraded || e.Peer != "bob" {
		t.Fatalf("first line %s: %+v, %v", lines[0], e, err)
	}
}
