package site

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRegenerableWritesKeepUnchangedFilesAndReplaceChangedOnes(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.md")
	os.WriteFile(src, []byte("trace"), 0o644)
	linkSrc := func(p string, d []byte) (bool, error) { return linkRegenerable(src, p, d) }
	tests := []struct {
		name        string
		write       func(path string, data []byte) (bool, error)
		old, data   string
		wantChanged bool
		wantLink    bool // the file is src itself, not a copy
	}{
		{"a new page is written", writeRegenerable, "", "page", true, false},
		{"the same bytes are left alone", writeRegenerable, "page", "page", false, false},
		{"other bytes replace the page", writeRegenerable, "page", "PAGE", true, false},
		{"a published file is linked", linkSrc, "", "trace", true, true},
		{"a stale copy of a published file is replaced by a link", linkSrc, "old trace", "trace", true, true},
		{"an unlinkable source is copied", func(p string, d []byte) (bool, error) { return linkRegenerable(filepath.Join(dir, "gone"), p, d) }, "", "trace", true, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, "out", string(rune('a'+i)), "f")
			if tt.old != "" {
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(tt.old), 0o644)
			}
			changed, err := tt.write(p, []byte(tt.data))
			if err != nil || changed != tt.wantChanged {
				t.Fatalf("changed %v err %v, want changed %v", changed, err, tt.wantChanged)
			}
			if got, _ := os.ReadFile(p); string(got) != tt.data {
				t.Errorf("file holds %q, want %q", got, tt.data)
			}
			if linked := sameFile(src, p); linked != tt.wantLink {
				t.Errorf("file is a link to the source: %v, want %v", linked, tt.wantLink)
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
