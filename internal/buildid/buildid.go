// Package buildid names the code a binary was built from, for caches
// whose contents depend on that code: the heartbeat's derived record and
// the site's build cache are computed again by a binary of other code.
package buildid

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
)

// Of is what info records of the code: the main module's version, the Go
// version and the vcs.revision, vcs.modified and vcs.time settings the
// toolchain stamps into a build from a checkout. nil gives "".
func Of(info *debug.BuildInfo) string {
	if info == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("module=" + info.Main.Version + " go=" + info.GoVersion + " ")
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" || s.Key == "vcs.time" {
			b.WriteString(s.Key + "=" + s.Value + " ")
		}
	}
	return b.String()
}

// Current is the running binary's identity: Of its build information,
// and, when that does not name the code (needsExecutable), the sha256 of
// the executable's bytes. It is computed once, on first use.
func Current() string { return current() }

var current = sync.OnceValue(func() string {
	info, _ := debug.ReadBuildInfo()
	return identity(info, executableHash)
})

// identity is Of(info), followed by "exe=" and exe's hash when info does
// not name the code. A hash that cannot be read gives a random value:
// a cache keyed by it is then computed again, never kept from other code.
func identity(info *debug.BuildInfo, exe func() (string, error)) string {
	id := Of(info)
	if !needsExecutable(info) {
		return id
	}
	h, err := exe()
	if err != nil {
		var nonce [16]byte
		rand.Read(nonce[:])
		h = "unread-" + hex.EncodeToString(nonce[:])
	}
	return id + "exe=" + h + " "
}

// needsExecutable reports whether info leaves the code unnamed: a build
// from a working tree with uncommitted changes (vcs.modified=true), whose
// revision stays the same across edits, or a development build with no
// revision at all (go run, go test, -buildvcs=false), whose version is
// "(devel)" whatever its code. A release (a module version) or a build of
// a clean checkout is named by its build information alone.
func needsExecutable(info *debug.BuildInfo) bool {
	if info == nil {
		return true
	}
	revision := false
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.modified" && s.Value == "true":
			return true
		case s.Key == "vcs.revision" && s.Value != "":
			revision = true
		}
	}
	return !revision && (info.Main.Version == "" || info.Main.Version == "(devel)")
}

// executableHash is the hex sha256 of the running executable's bytes.
func executableHash() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the executable: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("open the executable: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read the executable %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
