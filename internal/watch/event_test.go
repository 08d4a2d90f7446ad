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

// TestHelpReachesBothSinks runs /help on a real Watcher and writes every
// event it emitted to both sinks: the text sink prints the command list
// (an event without a Status once crashed it), the JSON sink one object
// of kind help per line.
func TestHelpReachesBothSinks(t *testing.T) {
	h := newHarness(t, "")
	ev := h.send("/help", EventHelp)
	help := ev[len(ev)-1]
	if help.Status != nil || help.Message != Help {
		t.Fatalf("help event = %+v, want the command list and no status", help)
	}
	var text, js bytes.Buffer
	toText, toJSON := Text(&text), JSONLines(&js)
	for _, e := range ev {
		toText(e)
		toJSON(e)
	}
	if !strings.Contains(text.String(), "/poll done|fail|skip ID [reason]") {
		t.Errorf("text sink lacks the command list:\n%s", text.String())
	}
	var got Event
	lines := strings.Split(strings.TrimSpace(js.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil || got.Kind != EventHelp || got.Message != Help {
		t.Errorf("last JSON line %s: %+v, %v; want the help event", lines[len(lines)-1], got, err)
	}
}

// TestTextPrintsAStatusEventWithoutStatus: the text sink falls back on the
// message rather than dereferencing a nil Status.
func TestTextPrintsAStatusEventWithoutStatus(t *testing.T) {
	var b bytes.Buffer
	Text(&b)(Event{Kind: EventStatus, Message: "polling off"})
	if b.String() != "[polling off]\n" {
		t.Fatalf("text = %q, want [polling off]", b.String())
	}
}

// TestTextPrintsNoTerminalEscapes: what /poll, an alert or an error shows
// of a peer's text reaches the terminal without the escapes it held
// (issue 18, item 6): no window title, cleared screen or clipboard write.
func TestTextPrintsNoTerminalEscapes(t *testing.T) {
	var b bytes.Buffer
	sink := Text(&b)
	at := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	osc := "\x1b]0;pwned\x07"
	sink(Event{Time: at, Kind: EventAlert, Message: "inbox +1: ev" + osc + "il/1"})
	sink(Event{Time: at, Kind: EventInbox, Items: []Item{{ID: "3f2a9c01b7de", Type: "capability\x1b]52;c;eA==\x07",
		From: "ev" + osc + "il", Status: "queued", TraceURL: "https://evil.example/traces/4.md\x1b[2J\u009b2J"}}})
	sink(Event{Time: at, Kind: EventError, Message: "fetch https://evil.example/\x1b[2J: timeout"})
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") || strings.ContainsRune(out, '\u009b') {
		t.Errorf("the text sink prints a terminal escape:\n%q", out)
	}
	if !strings.Contains(out, "capability\uFFFD]52;c;eA==\uFFFD") {
		t.Errorf("the item's type is not shown with its escapes replaced:\n%q", out)
	}
}
