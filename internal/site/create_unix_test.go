//go:build unix

package site

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestColdBuildSetsModesWhateverTheUmask builds cold under a umask that
// leaves sitePerm alone, where no file needs a chmod, and under one that
// takes bits off it, where every file does: both sites must be all
// sitePerm. The umask is the process's, so this test is not parallel.
func TestColdBuildSetsModesWhateverTheUmask(t *testing.T) {
	for _, tt := range []struct {
		name      string
		umask     int
		wantChmod bool
	}{
		{"umask 022 keeps the mode", 0o022, false},
		{"umask 077 takes bits off", 0o077, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old := syscall.Umask(tt.umask)
			defer syscall.Umask(old)
			probe := t.TempDir()
			if got, err := modeNeedsSetting(probe); err != nil || got != tt.wantChmod {
				t.Fatalf("modeNeedsSetting = %v, %v; want %v", got, err, tt.wantChmod)
			}
			if entries, _ := os.ReadDir(probe); len(entries) != 0 {
				t.Errorf("the probe left %d files behind", len(entries))
			}
			out := filepath.Join(t.TempDir(), "site")
			if _, err := Build(context.Background(), Options{Dir: "testdata/node", Out: out, Now: fixtureNow}); err != nil {
				t.Fatal(err)
			}
			files := siteFiles(t, out)
			if len(files) == 0 {
				t.Fatal("the build wrote no files")
			}
			for _, f := range files {
				fi, err := os.Lstat(filepath.Join(out, f))
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().IsRegular() && fi.Mode().Perm() != sitePerm {
					t.Errorf("%s: mode %v, want %v", f, fi.Mode().Perm(), os.FileMode(sitePerm))
				}
			}
		})
	}
}

// TestCreateWritesEveryByte writes files larger than one write may take
// and into a directory that does not exist yet.
func TestCreateWritesEveryByte(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	p := filepath.Join(dir, "a", "b", "big.html")
	if err := create(p, data, true); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != string(data) {
		t.Fatalf("read back %d bytes (err %v), want %d", len(got), err, len(data))
	}
	if err := create(p, data, false); err == nil {
		t.Error("create over an existing file succeeded; it must not replace it")
	}
}
