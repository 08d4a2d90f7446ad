package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A peer whose log the node refused shows the alarm, in logpin.State's
// words, on its agent page and a mark in the agents list; a peer read
// through its log shows it verified; one without a pin (read from
// MANIFEST.md) shows neither. The fixture pins ada (3 entries verified)
// and bob (a fork), not cyd.
func TestAgentPagesShowTheLogState(t *testing.T) {
	out, _ := buildFixture(t)
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, agentsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const refused = "log refused"
	tests := []struct {
		page       string
		want       []string
		wantNoneOf []string
	}{
		{"bob.html", []string{refused, "refused: fork (two checkpoints of size 2 with different roots); see the evidence, then run meshnode peers repin"}, nil},
		{"ada.html", []string{"log: 3 entries verified"}, []string{refused}},
		{"cyd.html", nil, []string{refused, "log:", "refused:"}},
	}
	for _, tc := range tests {
		t.Run(tc.page, func(t *testing.T) {
			page := read(tc.page)
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("missing %q", w)
				}
			}
			for _, w := range tc.wantNoneOf {
				if strings.Contains(page, w) {
					t.Errorf("shows %q", w)
				}
			}
		})
	}
	if n := strings.Count(read("index.html"), refused); n != 1 {
		t.Errorf("the agents list marks %d refused logs, want 1 (bob)", n)
	}
}
