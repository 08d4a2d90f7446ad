package buildid

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

func TestOfTellsBuildsOfOtherCodeApart(t *testing.T) {
	build := func(version, revision, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: version}, Settings: []debug.BuildSetting{
			{Key: "-trimpath", Value: "true"}, {Key: "vcs.revision", Value: revision}, {Key: "vcs.modified", Value: modified},
		}}
	}
	base := Of(build("(devel)", "aaaa", "false"))
	if base == "" {
		t.Fatal("Of gave nothing for a build with a revision")
	}
	for name, other := range map[string]*debug.BuildInfo{
		"another revision":   build("(devel)", "bbbb", "false"),
		"a modified tree":    build("(devel)", "aaaa", "true"),
		"another version":    build("v1.2.3", "aaaa", "false"),
		"another Go version": {GoVersion: "go1.25.0", Main: debug.Module{Version: "(devel)"}, Settings: build("", "aaaa", "false").Settings},
	} {
		if got := Of(other); got == base {
			t.Errorf("%s: Of = %q, the same as the base build's", name, got)
		}
	}
	if got := Of(build("(devel)", "aaaa", "false")); got != base {
		t.Errorf("the same build: Of = %q, want %q", got, base)
	}
	if got := Of(nil); got != "" {
		t.Errorf("Of(nil) = %q, want empty", got)
	}
}

func TestIdentityOfAnUnnamedBuildChangesWithTheExecutable(t *testing.T) {
	settings := func(revision, modified string) []debug.BuildSetting {
		var s []debug.BuildSetting
		if revision != "" {
			s = append(s, debug.BuildSetting{Key: "vcs.revision", Value: revision}, debug.BuildSetting{Key: "vcs.modified", Value: modified})
		}
		return s
	}
	for name, tc := range map[string]struct {
		info  *debug.BuildInfo
		named bool // the build information alone names the code
	}{
		"a clean checkout":            {&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: settings("aaaa", "false")}, true},
		"a release":                   {&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"}}, true},
		"a modified working tree":     {&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: settings("aaaa", "true")}, false},
		"a development build, no VCS": {&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}, false},
		"a build without a version":   {&debug.BuildInfo{GoVersion: "go1.26.0"}, false},
		"no build information at all": {nil, false},
	} {
		t.Run(name, func(t *testing.T) {
			calls := 0
			exe := func(h string) func() (string, error) {
				return func() (string, error) { calls++; return h, nil }
			}
			first, second := identity(tc.info, exe("1111")), identity(tc.info, exe("2222"))
			if tc.named {
				if first != Of(tc.info) || second != first || calls != 0 {
					t.Errorf("identity = %q, %q after %d reads of the executable; want Of's %q and no read", first, second, calls, Of(tc.info))
				}
				return
			}
			if first == second {
				t.Errorf("two executables share the identity %q", first)
			}
			if !strings.HasPrefix(first, Of(tc.info)) || !strings.HasSuffix(first, "exe=1111 ") {
				t.Errorf("identity = %q, want Of's %q and exe=1111", first, Of(tc.info))
			}
		})
	}
}

func TestIdentityOfAnExecutableThatCannotBeReadMatchesNoOther(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}
	fail := func() (string, error) { return "", errors.New("no executable") }
	if a, b := identity(info, fail), identity(info, fail); a == b {
		t.Errorf("two unreadable executables share the identity %q", a)
	}
}

// TestCurrentNamesThisTestBinary: go test stamps no VCS information, so
// the test binary is a development build whose identity must name its
// code: on an ELF system by the Go build ID the toolchain itself reports
// (go tool buildid), elsewhere by its bytes. Before, every build of a
// modified tree was one identity.
func TestCurrentNamesThisTestBinary(t *testing.T) {
	path, err := os.Executable()
	if err != nil {
		t.Skipf("no executable path here: %v", err)
	}
	want := "exe=" + wholeFileHash(t, path) + " "
	if _, ok := elfBuildID(path); ok {
		out, err := exec.Command("go", "tool", "buildid", path).Output()
		if err != nil {
			t.Skipf("go tool buildid, to compare with: %v", err)
		}
		want = "exe=go-build-id:" + strings.TrimSpace(string(out)) + " "
	}
	if got := Current(); !strings.HasSuffix(got, want) {
		t.Errorf("Current() = %q, want it to end in %q", got, want)
	}
	if first, again := Current(), Current(); first != again {
		t.Errorf("Current changed between two calls: %q, then %q", first, again)
	}
}

// TestAnExecutableWithoutABuildIDNoteIsNamedByItsBytes: a file that is no
// ELF executable (another system's format) is named by its sha256.
func TestAnExecutableWithoutABuildIDNoteIsNamedByItsBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meshnode.exe")
	if err := os.WriteFile(path, []byte("MZ not an ELF file"), 0o755); err != nil {
		t.Fatal(err)
	}
	if id, ok := elfBuildID(path); ok {
		t.Fatalf("elfBuildID of a file that is no ELF file = %q", id)
	}
	got, err := fileHash(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := wholeFileHash(t, path); got != want {
		t.Errorf("fileHash = %q, want %q", got, want)
	}
}

// TestAnExecutableOfAnotherFormatIsNamedByItsBuildID: a Mach-O or PE
// executable is named by the Go build ID the linker writes at the start of
// its code, read from its first KB, not by a hash of all its bytes. The
// fixtures are the first 8 KB of a hello world cross-built with go1.26.8;
// the IDs are what go tool buildid reported for the whole files. Before,
// such an executable was read whole and hashed.
func TestAnExecutableOfAnotherFormatIsNamedByItsBuildID(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"hello-windows-amd64.head", "jQ5HwHKfPqgn1RwvLojh/fViiRl0DMum4pm-MHlso/F3_idCsOnz2T_Q2AdDBW/g9DAvb50AusxxGdAxwTp"},
		{"hello-darwin-arm64.head", "sasStDGXaUf6kmwVInGY/ryMyIZ6jv4HBglPyYoAW/vvdP2vgS69wVnl-WDcXv/uX2sQD6KzviGinsqsDAI"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := executableIDAt(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if want := "go-build-id:" + tc.want; got != want {
				t.Errorf("executableIDAt = %q, want %q", got, want)
			}
		})
	}
}

func TestGoBuildIDTextReadsTheLinkersText(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
		ok               bool
	}{
		{"after code", "\x00\x01\xff Go build ID: \"a/b/c/d\"\n \xff\x00", "a/b/c/d", true},
		{"the first of two", "\xff Go build ID: \"x\"\n \xff\xff Go build ID: \"y\"\n \xff", "x", true},
		{"cut short", "\xff Go build ID: \"a/b/c", "", false},
		{"empty", "\xff Go build ID: \"\"\n \xff", "", false},
		{"badly quoted", "\xff Go build ID: \"a\\q\"\n \xff", "", false},
		{"none", "MZ not a Go executable", "", false},
	} {
		got, ok := goBuildIDText([]byte(tc.data))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: goBuildIDText = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzGoBuildIDText(f *testing.F) {
	f.Add([]byte("\xff Go build ID: \"a/b\"\n \xff"))
	f.Add([]byte("\xff Go build ID: \"\\x41\"\n \xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		id, ok := goBuildIDText(data)
		if ok != (id != "") {
			t.Fatalf("goBuildIDText(%q) = %q, %v", data, id, ok)
		}
		if !ok {
			return
		}
		// What the linker writes of id reads back as id.
		again, ok := goBuildIDText([]byte(goTextPrefix[:len(goTextPrefix)-1] + strconv.Quote(id) + goTextEnd[1:]))
		if !ok || again != id {
			t.Fatalf("goBuildIDText of %q written again = %q, %v", id, again, ok)
		}
	})
}

func TestGoBuildIDNoteReadsTheLinkersNote(t *testing.T) {
	note := func(order binary.AppendByteOrder, name string, typ uint32, desc string) []byte {
		b := order.AppendUint32(nil, uint32(len(name)))
		b = order.AppendUint32(b, uint32(len(desc)))
		b = order.AppendUint32(b, typ)
		return append(append(b, name...), desc...)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
		ok   bool
	}{
		{"little-endian", note(binary.LittleEndian, "Go\x00\x00", 4, "a/b/c/d"), "a/b/c/d", true},
		{"big-endian", note(binary.BigEndian, "Go\x00\x00", 4, "x/y"), "x/y", true},
		{"GNU's note", note(binary.LittleEndian, "GNU\x00", 3, "\x01\x02"), "", false},
		{"another type", note(binary.LittleEndian, "Go\x00\x00", 1, "a"), "", false},
		{"empty description", note(binary.LittleEndian, "Go\x00\x00", 4, ""), "", false},
		{"cut short", note(binary.LittleEndian, "Go\x00\x00", 4, "abcdef")[:20], "", false},
		{"no note", nil, "", false},
	} {
		got, ok := goBuildIDNote(tc.data, binary.LittleEndian)
		if tc.name == "big-endian" {
			got, ok = goBuildIDNote(tc.data, binary.BigEndian)
		}
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: goBuildIDNote = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzGoBuildIDNote(f *testing.F) {
	f.Add([]byte("\x04\x00\x00\x00\x03\x00\x00\x00\x04\x00\x00\x00Go\x00\x00a/b"))
	f.Add([]byte("\x04\x00\x00\x00\xff\xff\xff\xff\x04\x00\x00\x00Go\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		id, ok := goBuildIDNote(data, binary.LittleEndian)
		if ok && (id == "" || len(id) > len(data)) {
			t.Fatalf("goBuildIDNote(%q) = %q, true", data, id)
		}
		if !ok && id != "" {
			t.Fatalf("goBuildIDNote(%q) = %q, false", data, id)
		}
	})
}

// wholeFileHash is the hex sha256 of the file at path.
func wholeFileHash(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// BenchmarkExecutableID: what naming a development build costs, the Go
// build ID read from the ELF note or from the text at the start of the
// code (as in a Mach-O or PE file) against the whole executable hashed
// (docs/performance.md, "A development build's identity").
func BenchmarkExecutableID(b *testing.B) {
	path, err := os.Executable()
	if err != nil {
		b.Skipf("no executable path here: %v", err)
	}
	b.Run("go-build-id", func(b *testing.B) {
		for b.Loop() {
			if _, ok := elfBuildID(path); !ok {
				b.Skip("no Go build ID note in this executable")
			}
		}
	})
	b.Run("go-build-id-text", func(b *testing.B) {
		// An ELF file's text ID is not at its start: a PE file as large
		// as this executable, the fixture's head followed by zeros.
		pe := peAsLargeAs(b, path)
		for b.Loop() {
			if _, ok := textBuildID(pe); !ok {
				b.Fatal("no Go build ID text in the PE file's first bytes")
			}
		}
	})
	b.Run("sha256", func(b *testing.B) {
		for b.Loop() {
			if _, err := fileHash(path); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// peAsLargeAs writes the PE fixture's first bytes, padded with zeros to
// the size of the file at path, and returns the copy's path.
func peAsLargeAs(b *testing.B, path string) string {
	b.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	head, err := os.ReadFile(filepath.Join("testdata", "hello-windows-amd64.head"))
	if err != nil {
		b.Fatal(err)
	}
	pe := filepath.Join(b.TempDir(), "meshnode.exe")
	if err := os.WriteFile(pe, head, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.Truncate(pe, max(fi.Size(), int64(len(head)))); err != nil {
		b.Fatal(err)
	}
	return pe
}
