package site

import (
	"path/filepath"
	"testing"
)

// TestRelativeToAgreesWithRel checks the walk's cheap relative paths
// against filepath.Rel, for the shapes of --out a person gives (cleaned,
// as scanOut cleans it) and the paths a walk of it yields.
func TestRelativeToAgreesWithRel(t *testing.T) {
	tests := []struct{ name, out, below string }{
		{"relative directory", "site", "traces/a.html"},
		{"the directory itself", "site", ""},
		{"the working directory", ".", "index.html"},
		{"an absolute path", "/tmp/x/_site", "mesh/pages/2.html"},
		{"the root of the file system", "/", "srv/index.html"},
		{"a parent", "../out", "agents/ada.atom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Clean(tt.out)
			p := filepath.Join(out, tt.below) // as filepath.WalkDir joins them
			want, err := filepath.Rel(out, p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := relativeTo(out, p)
			if err != nil || got != want {
				t.Errorf("relativeTo(%q, %q) = %q, %v; want %q", out, p, got, err, want)
			}
		})
	}
}
