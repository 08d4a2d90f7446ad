package manifest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestFormatGolden parses every variant in testdata and checks that it is
// written back in the canonical layout byte for byte.
func TestFormatGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.md")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".md")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			m, _, err := Parse(data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := m.Format()
			golden := strings.TrimSuffix(in, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Format differs from %s:\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
			again, _, err := Parse(got)
			if err != nil {
				t.Fatalf("Parse(Format): %v", err)
			}
			if !bytes.Equal(again.Format(), got) {
				t.Errorf("Format(Parse(Format)) is not a fixpoint")
			}
		})
	}
}

func TestFormatWritesSeedLayoutNewestFirst(t *testing.T) {
	m := &Manifest{
		Agent: "jolt37", URL: "https://jolt37.hive37.ai/traces/",
		Updated:  time.Date(2026, 2, 23, 17, 0, 0, 0, time.FixedZone("CET", 3600)),
		Sequence: 42,
		Entries: []Entry{
			{Seq: 41, Hash: Hash("sha256:" + strings.Repeat("d", 64)), File: "traces/b.md", Type: "knowledge", Status: "validated",
				Submitted: time.Date(2026, 2, 23, 14, 0, 0, 0, time.UTC)},
			{Seq: 42, Hash: Hash("sha256:" + strings.Repeat("a", 64)), File: "traces/a.md", Type: "capability", Status: "pending",
				Submitted: time.Date(2026, 2, 23, 15, 45, 0, 250_000_000, time.UTC)},
		},
	}
	want := "# MANIFEST\n\nagent: jolt37\nurl: https://jolt37.hive37.ai/traces/\nupdated: 2026-02-23T16:00:00Z\nsequence: 42\n\n## Traces\n\n" +
		"| seq | hash | file | type | status | submitted |\n|-----|------|------|------|--------|-----------|\n" +
		"| 42 | sha256:" + strings.Repeat("a", 64) + " | traces/a.md | capability | pending | 2026-02-23T15:45:00.25Z |\n" +
		"| 41 | sha256:" + strings.Repeat("d", 64) + " | traces/b.md | knowledge | validated | 2026-02-23T14:00:00Z |\n"
	if got := string(m.Format()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if !bytes.Equal(m.Format(), m.Format()) {
		t.Error("two Formats of the same manifest differ")
	}
}

func TestFormatNeverDeclaresSequenceBelowHighestRow(t *testing.T) {
	m := &Manifest{Agent: "a", Sequence: 2, Entries: []Entry{{Seq: 7, Hash: HashBytes(nil)}}}
	if !bytes.Contains(m.Format(), []byte("\nsequence: 7\n")) {
		t.Errorf("sequence not raised to the highest row:\n%s", m.Format())
	}
}

func TestFormatKeepsHostileValuesInsideTheirCells(t *testing.T) {
	m := &Manifest{Agent: "evil\nsequence: 999", Entries: []Entry{
		{Seq: 1, Hash: HashBytes(nil), File: "a|b.md", Type: "x\ny"},
	}}
	back, _, err := Parse(m.Format())
	if err != nil {
		t.Fatal(err)
	}
	if back.Sequence != 1 {
		t.Errorf("agent value injected a sequence line: %d", back.Sequence)
	}
	if e := back.Entries[0]; e.File != "a|b.md" || e.Type != "x y" {
		t.Errorf("cells not kept: %+v", e)
	}
}
