package main

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// selfCommand is how the person can run this meshnode again, for commands
// printed for them to copy: "meshnode" when that name on PATH is this
// binary; "go run …" when this is a binary `go run` built in a temporary
// directory (it is gone once the run ends); else the binary's path.
func selfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "meshnode"
	}
	bi, _ := debug.ReadBuildInfo()
	return commandFor(exe, bi, exec.LookPath, sameFile, dirExists)
}

// commandFor is selfCommand with what it asks of the system passed in.
func commandFor(exe string, bi *debug.BuildInfo, lookPath func(string) (string, error), same func(a, b string) bool, isDir func(string) bool) string {
	if p, err := lookPath("meshnode"); err == nil && same(p, exe) {
		return "meshnode"
	}
	if !builtByGoRun(exe) {
		return exe
	}
	pkg, version := "github.com/meshnode/meshnode/cmd/meshnode", ""
	if bi != nil {
		pkg = cmp.Or(bi.Path, pkg)
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			version = v
		}
	}
	switch {
	case version != "":
		return "go run " + pkg + "@" + version
	case isDir(filepath.Join("cmd", "meshnode")):
		return "go run ./cmd/meshnode"
	}
	return "go run " + pkg
}

// builtByGoRun reports whether exe lies in a go-build temporary directory,
// where `go run` (and `go test`) put the binaries they build.
func builtByGoRun(exe string) bool {
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
