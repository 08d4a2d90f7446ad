package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorWarnsOfAURLNotSpelledAsPeersCompareIt: mesh.yaml's url is
// written as spelled into every validation and report the node publishes
// (validator_url, reporter_url), and config does not lower-case its host,
// so `url: https://Example.GitHub.io/x/` named the node in a spelling
// peers compare only through signal.SameURL; doctor said ok. It now
// warns, naming the canonical spelling, and the config keeps the url as
// written, the node's identity.
func TestDoctorWarnsOfAURLNotSpelledAsPeersCompareIt(t *testing.T) {
	for _, tc := range []struct {
		name, url string
		want      Status
		says      string
	}{
		{"mixed-case host", "https://Example.GitHub.io/x/", StatusWarn, "canonical spelling, the one peers compare, is https://example.github.io/x/"},
		{"default port", "https://example.github.io:443/x/", StatusWarn, "canonical spelling, the one peers compare, is https://example.github.io/x/"},
		{"empty path segment", "https://example.github.io/a//b/", StatusWarn, "peers refuse this url"},
		{"canonical", "https://example.github.io/x/", StatusOK, "mesh.yaml: agent ada at https://example.github.io/x/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "mesh.yaml"), []byte("agent: ada\nurl: "+tc.url+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, f := checkConfig(dir)
			if cfg == nil {
				t.Fatalf("config refused: %+v", f)
			}
			if f.Status != tc.want || !strings.Contains(f.Message, tc.says) {
				t.Errorf("finding %s %q, want %s saying %q", f.Status, f.Message, tc.want, tc.says)
			}
			if f.Status != StatusOK && f.Fix == "" {
				t.Error("a warning without a fix")
			}
			if cfg.URL != tc.url {
				t.Errorf("the config's url is %q, want it as mesh.yaml spells it, %q", cfg.URL, tc.url)
			}
		})
	}
}
