// Package buildid names the code a binary was built from, for caches
// whose contents depend on that code: the heartbeat's derived record and
// the site's build cache are computed again by a binary of other code.
package buildid

import (
	"crypto/rand"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
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
// and, when that does not name the code (needsExecutable), the
// executable's own: the Go build ID of its ELF note, or the sha256 of its
// bytes where it has none (executableID). It is computed once, on first
// use.
func Current() string { return current() }

var current = sync.OnceValue(func() string {
	info, _ := debug.ReadBuildInfo()
	return identity(info, executableID)
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

// executableID names the running executable's code: "go-build-id:" and
// the Go build ID the linker writes into an ELF executable's note (its
// last part a hash of the binary's content), read from the file's
// headers, a few KB; or, for an executable of another format or without
// the note, the hex sha256 of its bytes.
func executableID() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the executable: %w", err)
	}
	if id, ok := elfBuildID(path); ok {
		return "go-build-id:" + id, nil
	}
	return fileHash(path)
}

// maxNote bounds the Go build ID note read: the linker writes about 100
// bytes.
const maxNote = 4096

// elfBuildID returns the Go build ID of the ELF file at path, false when
// it is no ELF file or has no readable note of one.
func elfBuildID(path string) (string, bool) {
	f, err := elf.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil || s.Type != elf.SHT_NOTE || s.Size > maxNote {
		return "", false
	}
	data, err := s.Data()
	if err != nil {
		return "", false
	}
	return goBuildIDNote(data, f.ByteOrder)
}

// goNoteName and goNoteType are the name and type of the note in which the
// Go linker writes the build ID.
const (
	goNoteName = "Go\x00\x00"
	goNoteType = 4
)

// goBuildIDNote returns the build ID an ELF note section's data holds: a
// note's name size, description size and type, in the file's byte order,
// its name padded to 4 bytes, then its description, the build ID.
func goBuildIDNote(data []byte, order binary.ByteOrder) (string, bool) {
	const head = 12 + len(goNoteName)
	if len(data) < head {
		return "", false
	}
	nameSize, descSize, typ := order.Uint32(data), order.Uint32(data[4:]), order.Uint32(data[8:])
	if nameSize != 4 || typ != goNoteType || string(data[12:head]) != goNoteName {
		return "", false
	}
	if descSize == 0 || uint64(descSize) > uint64(len(data)-head) {
		return "", false
	}
	return string(data[head : head+int(descSize)]), true
}

// fileHash is the hex sha256 of the bytes of the file at path.
func fileHash(path string) (string, error) {
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
