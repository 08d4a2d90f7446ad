package check

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
)

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
		c0 := &checker{o: Options{Dir: dir, Base: base}}
		if got := c0.statBoth(c.file).sizesDiffer(); got != c.want {
			t.Errorf("sizesDiffer(%s) = %v, want %v", c.file, got, c.want)
		}
	}
}

// TestCheckReadsNoLargeFileOfAPullRequestWhole: a pull request's file of
// 256 MiB (sparse here; GitHub takes files of 100 MB) where the base has
// none (a heartbeat's file, FOUNDERS.md, IDENTITY.md), or in place of a
// published trace, is refused without being read whole: on a1601b37 each
// was read into memory to be compared with the base's, or hashed.
func TestCheckReadsNoLargeFileOfAPullRequestWhole(t *testing.T) {
	const large = 256 << 20
	const published = "traces/2026-03-01-polling-costs.md"
	cases := []struct {
		name, file, want string
		base             func(t *testing.T, base string)
	}{
		{"a heartbeat's file new to the base", "mesh-state/junk.json", "written only by the heartbeat", nil},
		{"FOUNDERS.md where the base has none", node.FoundersFile, "changes the mesh's founders", func(t *testing.T, base string) {
			remove(t, base, node.FoundersFile)
		}},
		{"IDENTITY.md where the base has none", node.IdentityFile, "the gate never passes a change to IDENTITY.md", nil},
		{"a published trace", published, "published file was edited", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := cleanNode(t)
			if c.base != nil {
				c.base(t, base)
			}
			var got string
			allocated := allocatedBy(func() {
				got = checkPR(t, base, c.file, func(pr string) {
					write(t, pr, c.file, "")
					if err := os.Truncate(filepath.Join(pr, filepath.FromSlash(c.file)), large); err != nil {
						t.Fatal(err)
					}
				})
			})
			if !strings.Contains(got, c.file+":1: ") || !strings.Contains(got, c.want) {
				t.Errorf("the large file is not refused as %q:\n%s", c.want, got)
			}
			if allocated > large/8 {
				t.Errorf("checking it allocated %d MiB: the file was read whole", allocated>>20)
			}
		})
	}
}

// allocatedBy returns the bytes of heap f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func remove(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
		t.Fatal(err)
	}
}

// TestCheckStatsAChangedFileOncePerSide: whether a pull request's file
// differs from the base's is told from one stat of each side, however many
// of its traits (size, mode, presence) are compared: on 0825e87e a
// heartbeat's file made executable took six stats, three of each side.
func TestCheckStatsAChangedFileOncePerSide(t *testing.T) {
	cases := []struct {
		name, file, want string
		edit             func(t *testing.T, pr, file string)
	}{
		{"a heartbeat's file of the same size", "mesh-state/junk.json", "written only by the heartbeat", func(t *testing.T, pr, file string) {
			write(t, pr, file, "{}")
		}},
		{"a heartbeat's file made executable", "mesh-state/junk.json", "written only by the heartbeat", func(t *testing.T, pr, file string) {
			chmod(t, pr, file, 0o755)
		}},
		{"AGENTS.md of the same size", node.AgentsFile, "changes the agents this node polls", func(t *testing.T, pr, file string) {
			write(t, pr, file, "# Agents!\n")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := cleanNode(t)
			if c.file == node.AgentsFile {
				write(t, base, c.file, "# Agents.\n")
			} else {
				write(t, base, c.file, "[]")
			}
			stats := map[string]int{}
			countStats(t, stats)
			got := checkPR(t, base, c.file, func(pr string) { c.edit(t, pr, c.file) })
			if !strings.Contains(got, c.file+":1: ") || !strings.Contains(got, c.want) {
				t.Errorf("the change is not refused as %q:\n%s", c.want, got)
			}
			for dir, n := range stats {
				if n != 1 {
					t.Errorf("%s stat %d times in %s, want once", c.file, n, dir)
				}
			}
			if len(stats) != 2 {
				t.Errorf("stats made in %d trees, want 2 (the pull request's and the base's): %v", len(stats), stats)
			}
		})
	}
}

// countStats counts, by tree, the stats the check makes to compare a file
// with the base, until the test ends.
func countStats(t *testing.T, stats map[string]int) {
	t.Helper()
	old := statFile
	statFile = func(dir, file string) (fs.FileInfo, error) {
		stats[dir]++
		return old(dir, file)
	}
	t.Cleanup(func() { statFile = old })
}
