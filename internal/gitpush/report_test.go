package gitpush

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestMarkdownIsTheJobSummaryTable(t *testing.T) {
	s, err := ReadSummary(filepath.Join("testdata", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.md", s.Markdown())
}

func TestMarkdownOmitsEmptySections(t *testing.T) {
	md := (&Summary{PeersPolled: 3}).Markdown()
	for _, section := range []string{"Hash mismatches", "Failed polls", "Unreachable"} {
		if strings.Contains(md, section) {
			t.Errorf("empty summary has a %q section:\n%s", section, md)
		}
	}
	if !strings.Contains(md, "| peers polled | 3 |") {
		t.Errorf("count row missing:\n%s", md)
	}
}

func TestAnnotationsFlagMismatchesAndUnreachablePeers(t *testing.T) {
	s, err := ReadSummary(filepath.Join("testdata", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, a := range s.Annotations() {
		lines = append(lines, a.String())
	}
	golden(t, "annotations.txt", strings.Join(lines, "\n")+"\n")
	if got := (&Summary{Failures: []Failure{{Peer: "x"}}}).Annotations(); len(got) != 0 {
		t.Errorf("a failed poll alone made annotations: %v", got)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test -update and review the diff)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}
