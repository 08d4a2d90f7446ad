package setup

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// templateAttributes is the template's .gitattributes: the node's
// published files byte for byte.
const templateAttributes = "MANIFEST.md -text\nIDENTITY.md -text\nAGENTS.md -text\ntraces/** -text\nvalidations/** -text\ndisputes/** -text\n"

// TestDoctorNoticesAttributesThatRewriteNodeFiles: a .gitattributes line
// that changes the bytes of node files on checkout (the attack of a pull
// request merged by hand: traces/** eol=crlf) fails, naming the files.
func TestDoctorNoticesAttributesThatRewriteNodeFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	tests := []struct {
		name   string
		files  map[string]string
		status Status
		want   string
	}{
		{"the template's attributes", map[string]string{".gitattributes": templateAttributes}, StatusOK, "git keeps the node's 3 committed file(s) byte for byte"},
		{"traces in CRLF", map[string]string{".gitattributes": templateAttributes + "traces/** eol=crlf\n"}, StatusFail,
			"git rewrites 1 node file(s) on checkout (traces/a.md eol=crlf)"},
		{"a filter hidden in validations/", map[string]string{".gitattributes": templateAttributes, "validations/.gitattributes": "* filter=lfs\n"}, StatusFail,
			"validations/val-aaaaaaaaaaaa.md filter=lfs"},
		{"text set on everything", map[string]string{".gitattributes": "* text\n"}, StatusFail,
			"git rewrites 3 node file(s) on checkout (MANIFEST.md text=set; traces/a.md text=set; validations/val-aaaaaaaaaaaa.md text=set)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"MANIFEST.md": "# MANIFEST\n", "traces/a.md": "# A\n", "validations/val-aaaaaaaaaaaa.md": "# V\n", "README.md": "x\n"}
			for k, v := range tt.files {
				files[k] = v
			}
			for name, text := range files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
				if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			got := CheckAttributes(context.Background(), dir)
			if got.Status != tt.status || !strings.Contains(got.Message, tt.want) {
				t.Errorf("finding %s: %s\nwant %s containing %q", got.Status, got.Message, tt.status, tt.want)
			}
		})
	}
	if got := CheckAttributes(context.Background(), t.TempDir()); got.Status != StatusWarn {
		t.Errorf("outside a repository: %+v, want a warning", got)
	}
}
