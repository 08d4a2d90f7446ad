// Package buildid names the code a binary was built from, for caches
// whose contents depend on that code: the heartbeat's derived record and
// the site's build cache are computed again by a binary of other code.
package buildid

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
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
// executable's own: its Go build ID, or the sha256 of its bytes where it
// has none (executableIDAt). It is computed once, on first
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

// executableID names the running executable's code (executableIDAt).
func executableID() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the executable: %w", err)
	}
	return executableIDAt(path)
}

// executableIDAt names the code of the executable at path: "go-build-id:"
// and the Go build ID the linker writes (its last part a hash of the
// binary's content), from an ELF executable's note or, in another format
// (Mach-O, PE), from the text the linker writes at the start of its code,
// a few KB in either case; or, for an executable without one, the hex
// sha256 of its bytes.
func executableIDAt(path string) (string, error) {
	if id, ok := elfBuildID(path); ok {
		return "go-build-id:" + id, nil
	}
	if id, ok := textBuildID(path); ok {
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

// maxTextHead is how much of a non-ELF executable textBuildID reads: the
// go command's own reader (cmd/internal/buildid) reads 32 KiB, where the
// linker puts the start of the code at 0x600 in a PE file and 0x1000 in a
// Mach-O one.
const maxTextHead = 32 << 10

// textBuildID returns the Go build ID written as text at the start of the
// code of the executable at path, read from its first maxTextHead bytes;
// false when they hold none. The go command writes the build ID there in
// every format, and gives it the hash of the linked file, as it does the
// ELF note.
func textBuildID(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	head := make([]byte, maxTextHead)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", false
	}
	return goBuildIDText(head[:n])
}

// The text the Go linker writes the build ID in, quoted:
// \xff Go build ID: "…"\n \xff.
const (
	goTextPrefix = "\xff Go build ID: \""
	goTextEnd    = "\"\n \xff"
)

// goBuildIDText returns the build ID in the first of the linker's texts
// that data holds, false when it holds none, or one cut short or not
// quoted as Go quotes it.
func goBuildIDText(data []byte) (string, bool) {
	_, rest, ok := bytes.Cut(data, []byte(goTextPrefix))
	if !ok {
		return "", false
	}
	quoted, _, ok := bytes.Cut(rest, []byte(goTextEnd))
	if !ok {
		return "", false
	}
	id, err := strconv.Unquote(`"` + string(quoted) + `"`)
	if err != nil || id == "" {
		return "", false
	}
	return id, true
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
