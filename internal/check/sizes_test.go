package check

import "testing"

// TestSizesDifferTellsAChangeOnlyByTwoRegularFiles: two sizes are a
// change told without reading; the same size, a missing side or a
// directory leave the answer to the comparison of the bytes.
func TestSizesDifferTellsAChangeOnlyByTwoRegularFiles(t *testing.T) {
	dir, base := t.TempDir(), t.TempDir()
	write(t, dir, "traces/a.md", "longer text")
	write(t, base, "traces/a.md", "short")
	write(t, dir, "traces/b.md", "same!")
	write(t, base, "traces/b.md", "diff!")
	write(t, dir, "traces/c.md", "only in the pull request")
	for _, c := range []struct {
		file string
		want bool
	}{
		{"traces/a.md", true},
		{"traces/b.md", false}, // same size: the bytes decide
		{"traces/c.md", false}, // missing in base: the bytes decide
		{"traces", false},
	} {
		if got := sizesDiffer(dir, base, c.file); got != c.want {
			t.Errorf("sizesDiffer(%s) = %v, want %v", c.file, got, c.want)
		}
	}
}
