package manifest

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseReadsEveryLayout(t *testing.T) {
	tests := []struct {
		file     string
		agent    string
		sequence Seq
		rows     int
		maxSeq   Seq
		first    Entry // Hash is checked only for its shape
		updated  time.Time
	}{
		{"canonical.md", "jolt37", 42, 2, 42,
			Entry{Seq: 42, File: "traces/capability-dci-hn-scout.md", Type: "capability", Status: "pending", Submitted: time.Date(2026, 2, 23, 15, 45, 0, 0, time.UTC)},
			time.Date(2026, 2, 23, 16, 0, 0, 0, time.UTC)},
		{"titled.md", "czero", 3, 3, 3,
			Entry{Seq: 1, File: "traces/001-first-trace.md", Type: "knowledge", Status: "submitted", Submitted: time.Date(2026, 2, 26, 16, 20, 18, 349_000_000, time.UTC)},
			time.Date(2026, 2, 26, 16, 20, 18, 349_000_000, time.UTC)},
		{"header-twice.md", "noobagent", 254, 3, 152,
			Entry{Seq: 1, File: "traces/001-first-trace.md", Type: "capability", Status: "submitted", Submitted: time.Date(2026, 2, 25, 19, 5, 12, 0, time.UTC)},
			time.Date(2026, 3, 2, 15, 7, 42, 0, time.UTC)},
		{"system-empty.md", "bridge", 3, 0, 0, Entry{}, time.Time{}},
		{"timestamp-column.md", "bridge", 2, 2, 2,
			Entry{Seq: 1, File: "traces/001-trace.md", Type: "coordination", Status: "submitted", Submitted: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
			time.Time{}},
		{"legacy-trace.md", "axon37", 0, 2, 2,
			Entry{Seq: 1, Type: "knowledge", Status: "validated", Category: "rock", Submitted: time.Date(2026, 1, 30, 0, 0, 0, 0, time.UTC)},
			time.Time{}},
		{"legacy-seq.md", "abernath37", 2, 2, 2,
			Entry{Seq: 1, Type: "knowledge", Title: "Federated model notes", Category: "rock"},
			time.Time{}},
		{"reordered.md", "uno", 4, 2, 2,
			Entry{Seq: 1, File: "traces/001-first-trace.md", Type: "knowledge", Status: "Submitted", Submitted: time.Date(2026, 3, 3, 4, 49, 42, 983_000_000, time.UTC)},
			time.Date(2026, 3, 3, 4, 49, 42, 983_000_000, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".md"), func(t *testing.T) {
			m, problems, err := Parse(readTestdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != 0 {
				t.Errorf("problems: %v", problems)
			}
			if m.Agent != tt.agent || m.Sequence != tt.sequence || len(m.Entries) != tt.rows || m.MaxSeq() != tt.maxSeq {
				t.Errorf("got agent %q sequence %d rows %d maxSeq %d, want %q %d %d %d",
					m.Agent, m.Sequence, len(m.Entries), m.MaxSeq(), tt.agent, tt.sequence, tt.rows, tt.maxSeq)
			}
			if !m.Updated.Equal(tt.updated) {
				t.Errorf("updated %v, want %v", m.Updated, tt.updated)
			}
			for _, e := range m.Entries {
				if !e.Hash.Valid() {
					t.Errorf("hash not normalised: %q", e.Hash)
				}
			}
			if tt.rows == 0 {
				return
			}
			got := m.Entries[0]
			got.Hash = ""
			if got != tt.first {
				t.Errorf("first row\n got %+v\nwant %+v", got, tt.first)
			}
		})
	}
}

func TestParseLegacyRowsKeepTitlesAndHaveNoFile(t *testing.T) {
	m, _, err := Parse(readTestdata(t, "legacy-trace.md"))
	if err != nil {
		t.Fatal(err)
	}
	e := m.Entries[1]
	if e.Seq != 2 || e.Title != "Trace 002: Mesh polling" || e.File != "" || e.Status != "pending" {
		t.Errorf("got %+v", e)
	}
	m, _, err = Parse(readTestdata(t, "legacy-seq.md"))
	if err != nil {
		t.Fatal(err)
	}
	if e := m.Entries[1]; e.Title != "Polling | cursors" || e.Category != "boulder" {
		t.Errorf("escaped pipe or title lost: %+v", e)
	}
}

func TestParseSkipsBadRowsWithProblems(t *testing.T) {
	m, problems, err := Parse(readTestdata(t, "bad-rows.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got := []Seq{m.Entries[0].Seq, m.Entries[1].Seq}; len(m.Entries) != 2 || got[0] != 1 || got[1] != 5 {
		t.Fatalf("kept rows %+v, want seqs 1 and 5", m.Entries)
	}
	if !m.Entries[1].Submitted.IsZero() {
		t.Errorf("unparseable submitted not zero: %v", m.Entries[1].Submitted)
	}
	want := map[int]string{9: "hash", 10: "seq", 11: "cells", 12: "submitted", 13: "seq"}
	if len(problems) != len(want) {
		t.Fatalf("problems %v, want lines %v", problems, want)
	}
	for _, p := range problems {
		if !strings.Contains(p.Reason, want[p.Line]) {
			t.Errorf("line %d: reason %q does not mention %q", p.Line, p.Reason, want[p.Line])
		}
	}
}

func TestParseRejectsWhatIsNotAManifest(t *testing.T) {
	tests := []struct {
		name string
		data string
	}{
		{"empty", ""},
		{"html error page", "<!DOCTYPE html><html><body><h1>404 Not Found</h1></body></html>"},
		{"prose", "# Hello\n\nThis is my trace.\n"},
		{"table without hash column", "| a | b |\n|---|---|\n| 1 | 2 |\n"},
		{"not utf-8", "sequence: 1\n\xff\xfe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _, err := Parse([]byte(tt.data))
			if err == nil {
				t.Fatalf("got %+v, want an error", m)
			}
			if tt.name != "not utf-8" && !errors.Is(err, ErrNotManifest) {
				t.Errorf("error %v is not ErrNotManifest", err)
			}
		})
	}
}

func TestParseStopsAtRowLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("sequence: 1\n| seq | hash |\n|---|---|\n")
	for i := 0; i < MaxRows+10; i++ {
		b.WriteString("|1|\n")
	}
	_, problems, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != maxProblems+1 {
		t.Errorf("%d problems, want the cap %d plus one notice", len(problems), maxProblems)
	}
}

func TestParseSkipsOverlongLines(t *testing.T) {
	data := "sequence: 1\n| seq | hash |\n|---|---|\n| 1 | " + strings.Repeat("a", MaxLineBytes) + " |\n"
	m, problems, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Entries) != 0 || len(problems) != 1 || problems[0].Line != 4 {
		t.Errorf("entries %v problems %v", m.Entries, problems)
	}
}

func TestParseIgnoresOtherTables(t *testing.T) {
	data := "sequence: 1\n| seq | hash |\n|---|---|\n| 1 | " + HashBytes(nil) + " |\n\n## Notes\n\n| who | what |\n|---|---|\n| a | b |\n"
	m, problems, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Entries) != 1 || len(problems) != 1 || problems[0].Line != 8 {
		t.Errorf("entries %v problems %v", m.Entries, problems)
	}
}

func TestParseCleansControlCharactersInMetadata(t *testing.T) {
	hash := "sha256:" + strings.Repeat("ab", 32)
	data := "# MANIFEST\n\nagent: ev\x1b]0;x\x07il\nsequence: 2\n\n" +
		"| seq | hash | file | type | status | submitted |\n|---|---|---|---|---|---|\n" +
		"| 1 | " + hash + " | traces/a.md | capability\x00 | pending | 2026-02-23T15:45:00Z |\n" +
		"| 2 | " + hash + " | traces/b.md | \x1b[2Jknowledge\u202e | pending\x7f | 2026-02-23T15:45:00Z |\n"
	m, _, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if m.Agent != "ev\uFFFD]0;x\uFFFDil" {
		t.Errorf("agent = %q", m.Agent)
	}
	if len(m.Entries) != 2 {
		t.Fatalf("%d entries, want 2", len(m.Entries))
	}
	byFile := map[string]Entry{}
	for _, e := range m.Entries {
		byFile[e.File] = e
	}
	if e := byFile["traces/a.md"]; e.Type != "capability\uFFFD" {
		t.Errorf("type with a NUL = %q, want it replaced (not the known type capability)", e.Type)
	}
	if e := byFile["traces/b.md"]; e.Type != "\uFFFD[2Jknowledge\uFFFD" || e.Status != "pending\uFFFD" {
		t.Errorf("type %q, status %q: want escapes and overrides replaced", e.Type, e.Status)
	}
}

func TestParseArchiveLines(t *testing.T) {
	m, problems, err := Parse(readTestdata(t, "archived.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Archive{
		{First: 1, Last: 5000, File: "archive/MANIFEST-000000001-000005000.md", Hash: HashBytes([]byte("a"))},
		{First: 5001, Last: 10000, File: "archive/MANIFEST-000005001-000010000.md", Hash: HashBytes([]byte("b"))},
	}
	if len(m.Archives) != len(want) {
		t.Fatalf("archives %+v, want %+v", m.Archives, want)
	}
	for i := range want {
		if m.Archives[i] != want[i] {
			t.Errorf("archive %d = %+v, want %+v", i, m.Archives[i], want[i])
		}
	}
	// The overlapping line is dropped silently; the three malformed ones
	// are problems.
	if len(problems) != 3 {
		t.Errorf("problems %+v, want 3", problems)
	}
}

func TestParseReadsTheRuleSetLine(t *testing.T) {
	data, err := os.ReadFile("testdata/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := Parse(data)
	if err != nil || m.Rules != "mesh-2026-2" {
		t.Fatalf("got rules %q, %v; want mesh-2026-2", m.Rules, err)
	}
}
