package site

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestColdAndIncrementalBuildsWriteTheSameSite builds the fixture twice:
// once into an absent directory (staged, files written in place) and once
// into a directory that holds only an old marker (every file put in place
// one by one, as a rebuild does), and checks the two sites match file for
// file, byte for byte and mode for mode.
func TestColdAndIncrementalBuildsWriteTheSameSite(t *testing.T) {
	cold, _ := buildFixture(t)
	inc := t.TempDir()
	os.WriteFile(filepath.Join(inc, markerFile), nil, 0o644)
	if _, err := Build(context.Background(), Options{Dir: "testdata/node", Out: inc, Now: fixtureNow}); err != nil {
		t.Fatal(err)
	}
	coldFiles, incFiles := siteFiles(t, cold), siteFiles(t, inc)
	if strings.Join(coldFiles, "\n") != strings.Join(incFiles, "\n") {
		t.Fatalf("cold build has files\n%v\nincremental build has\n%v", coldFiles, incFiles)
	}
	for _, f := range coldFiles {
		a, _ := os.ReadFile(filepath.Join(cold, f))
		b, _ := os.ReadFile(filepath.Join(inc, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between a cold and an incremental build", f)
		}
		fa, _ := os.Stat(filepath.Join(cold, f))
		fb, _ := os.Stat(filepath.Join(inc, f))
		if fa.Mode() != fb.Mode() || fa.Mode().Perm() != sitePerm {
			t.Errorf("%s: mode %v cold, %v incremental, want %v", f, fa.Mode(), fb.Mode(), os.FileMode(sitePerm))
		}
	}
}

func TestColdBuildLeavesNoStage(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(out string)
		cancel  bool
		wantErr bool
	}{
		{"a finished build", func(string) {}, false, false},
		{"a stage an interrupted build left is cleared", func(out string) {
			os.MkdirAll(filepath.Join(out, stagePrefix+"old", "traces"), 0o755)
			os.WriteFile(filepath.Join(out, stagePrefix+"old", "traces", "x.html"), []byte("half"), 0o644)
		}, false, false},
		{"a cancelled build", func(string) {}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "site")
			os.MkdirAll(out, 0o755)
			tt.prepare(out)
			ctx, cancel := context.WithCancel(context.Background())
			if tt.cancel {
				cancel()
			}
			defer cancel()
			_, err := Build(ctx, Options{Dir: "testdata/node", Out: out, Now: fixtureNow})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			entries, _ := os.ReadDir(out)
			for _, e := range entries {
				if isStage(e.Name()) {
					t.Errorf("%s left in the site", e.Name())
				}
			}
			if _, err := os.Stat(filepath.Join(out, "index.html")); (err == nil) == tt.wantErr {
				t.Errorf("index.html present: %v, want %v", err == nil, !tt.wantErr)
			}
		})
	}
}
