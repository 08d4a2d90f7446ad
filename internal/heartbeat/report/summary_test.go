package report

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSortListsGivesTheSameJSONWhateverTheOrder(t *testing.T) {
	a := &Summary{
		HashMismatches: []Mismatch{{Peer: "b", Seq: 2}, {Peer: "a", Seq: 9}, {Peer: "a", Seq: 1}},
		Failures:       []Failure{{Peer: "z"}, {Peer: "m"}},
		Unreachable:    []string{"y", "x"},
	}
	b := &Summary{
		HashMismatches: []Mismatch{{Peer: "a", Seq: 1}, {Peer: "b", Seq: 2}, {Peer: "a", Seq: 9}},
		Failures:       []Failure{{Peer: "m"}, {Peer: "z"}},
		Unreachable:    []string{"x", "y"},
	}
	a.SortLists()
	b.SortLists()
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatalf("same summary, two orders:\n%s\n%s", ja, jb)
	}
	empty := &Summary{}
	empty.SortLists()
	j, _ := json.Marshal(empty)
	for _, key := range []string{`"hash_mismatches":[]`, `"failures":[]`, `"unreachable":[]`, `"spikes":[]`} {
		if !strings.Contains(string(j), key) {
			t.Errorf("an empty summary lacks %s: %s", key, j)
		}
	}
}

func TestWriteTextKeepsEachProblemOnOneLine(t *testing.T) {
	s := &Summary{
		Failures: []Failure{{Peer: "ada", Error: "dial tcp: refused\nfailed: forged line"}},
		Held:     []Held{{File: "traces/x.html", Reason: strings.Repeat("r", 500)}},
	}
	var b strings.Builder
	s.WriteText(&b)
	out := b.String()
	if strings.Count(out, "\nfailed:") != 1 || !strings.Contains(out, "\nfailed: ada: dial tcp: refused failed: forged line\n") {
		t.Errorf("a peer's error with a newline spans lines:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 260 {
			t.Errorf("a line of %d bytes: a reason is not cut", len(line))
		}
	}
}

// TestWriteTextPrintsNoTerminalEscapes: a log's alarm names the key a
// peer restarted its log under, whose name may hold escapes; a relay's
// fault, a key's name with bidirectional controls; a failure, what a
// peer served. On a1601b37 the heartbeat printed them raw to the
// operator's terminal; now each control is U+FFFD, and a value cut to its
// length is cut between characters, never inside one.
func TestWriteTextPrintsNoTerminalEscapes(t *testing.T) {
	s := &Summary{
		LogsRefused: []LogRefused{{Peer: "fay", State: "restart: the log restarted under the key fay\x1b]0;pwned\x07+1234abcd+AQ"}},
		Relays:      []Relay{{URL: "https://relay.example/", State: "faulted", Fault: "forged: invalid signature for key fay\u202e\u2066+1a8b899d"}},
		Failures:    []Failure{{Peer: "gus", Error: "manifest: \x1b[2J\u009b2J" + strings.Repeat("é", 200)}},
	}
	var b strings.Builder
	s.WriteText(&b)
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07\u009b\u202e\u2066") || strings.Count(out, "\uFFFD") != 6 {
		t.Errorf("the text form prints a control, or hides where one was:\n%q", out)
	}
	if !utf8.ValidString(out) {
		t.Errorf("a value cut inside a character:\n%q", out)
	}
}

func TestWriteTextSaysWhichRulesDiffer(t *testing.T) {
	s := &Summary{Rules: "mesh-2099-1", RulesUnknown: true, RulesDiffer: []RulesPeer{{Peer: "bob", Note: "peer bob computes with rule set mesh-2026-2"}}}
	var b strings.Builder
	s.WriteText(&b)
	for _, want := range []string{"rules: FOUNDERS.md names rule set mesh-2099-1, which this meshnode does not implement", "rules: peer bob computes with rule set mesh-2026-2\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}
