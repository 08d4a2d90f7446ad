package gitpush

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/heartbeat/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestMarkdownIsTheJobSummaryTable(t *testing.T) {
	s, err := ReadSummary(filepath.Join("testdata", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.md", Markdown(s))
}

func TestMarkdownOmitsEmptySections(t *testing.T) {
	md := Markdown(&Summary{PeersPolled: 3})
	for _, section := range []string{"Hash mismatches", "Failed polls", "Unreachable", "Spikes"} {
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
	for _, a := range Annotations(s) {
		lines = append(lines, a.String())
	}
	golden(t, "annotations.txt", strings.Join(lines, "\n")+"\n")
	if got := Annotations(&Summary{Failures: []report.Failure{{Peer: "x"}}}); len(got) != 0 {
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

func TestMarkdownSaysWhyScoresWait(t *testing.T) {
	md := Markdown(&Summary{Waiting: 2, WaitingReason: "no standing yet: 3 of 10 own traces validated by others"})
	if !strings.Contains(md, "| waiting for standing or a person | 2 |") || !strings.Contains(md, "Scores wait: no standing yet: 3 of 10") {
		t.Errorf("job summary does not say why scores wait:\n%s", md)
	}
}
