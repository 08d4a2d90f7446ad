package main

import (
	"strings"
	"testing"
)

// TestVerifyPrintsNoTerminalEscapesOfTheAuditedSite: the node audited by
// `meshnode verify` serves a signal.html whose values (a SIGNAL, a tier,
// an agent's name) hold escape sequences. verify prints what a page shows
// beside what the files give, and names the agents it did not read: on
// 14f1df39 raw, so the audited node's pages drove the terminal of the
// person auditing it; now each escape is U+FFFD, as in inbox and peers.
func TestVerifyPrintsNoTerminalEscapesOfTheAuditedSite(t *testing.T) {
	page := `<table><tr class="self" data-agent="ann" data-signal="9` + oscTitle + `" data-tier="` + csiClear + `Trusted` + c1CSI + `"><td>ann</td></tr>` +
		`<tr data-agent="eve` + oscClipboard + `" data-signal="99" data-tier="Trusted"><td>eve</td></tr></table>`
	url := serveBasicMesh(t, false, map[string]string{"/ann/signal.html": page})
	code, stdout, stderr := runSetupCLI(t, "verify", "--allow-private-addresses", "--now", "2026-03-15T00:00:00Z", url+"/ann/")
	if code != exitProblem {
		t.Fatalf("exit %d, want %d\nstdout:\n%q\nstderr:\n%q", code, exitProblem, stdout, stderr)
	}
	assertNoEscapes(t, "verify", stdout)
	if strings.ContainsAny(stderr, "\x1b\x07") || strings.ContainsRune(stderr, '\u009b') {
		t.Errorf("verify prints a terminal escape on stderr:\n%q", stderr)
	}
}
