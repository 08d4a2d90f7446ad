package site

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildMatchesGoldenSite compares every generated file of the fixture
// node's site with testdata/golden/ (go test -update rewrites them; review
// the diff). Copied files are checked byte for byte elsewhere.
func TestBuildMatchesGoldenSite(t *testing.T) {
	out, _ := buildFixture(t)
	golden := filepath.Join("testdata", "golden")
	var generated []string
	for _, f := range siteFiles(t, out) {
		if strings.HasSuffix(f, ".md") || f == "style.css" {
			continue
		}
		generated = append(generated, f)
	}
	if *update {
		os.RemoveAll(golden)
	}
	for _, f := range generated {
		t.Run(f, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(golden, filepath.FromSlash(f)+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(want), 0o755)
				if err := os.WriteFile(want, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			w, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("no golden file (run go test -update): %v", err)
			}
			if !bytes.Equal(got, w) {
				t.Errorf("%s differs from %s; run go test -update and review the diff\n%s", f, want, firstDiff(string(w), string(got)))
			}
		})
	}
	if !*update {
		var goldens []string
		filepath.WalkDir(golden, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(golden, p)
				goldens = append(goldens, strings.TrimSuffix(filepath.ToSlash(rel), ".golden"))
			}
			return nil
		})
		if len(goldens) != len(generated) {
			t.Errorf("built %d generated files, golden has %d: %v vs %v", len(generated), len(goldens), generated, goldens)
		}
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, w, g)
		}
	}
	return ""
}
