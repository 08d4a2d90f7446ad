package buildid

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"runtime/debug"
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

// TestCurrentHashesThisTestBinary: go test stamps no VCS information, so
// the test binary is a development build whose identity must name its
// bytes. Before, every build of a modified tree was one identity.
func TestCurrentHashesThisTestBinary(t *testing.T) {
	path, err := os.Executable()
	if err != nil {
		t.Skipf("no executable path here: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	want := "exe=" + hex.EncodeToString(sum[:]) + " "
	if got := Current(); !strings.HasSuffix(got, want) {
		t.Errorf("Current() = %q, want it to end in %q", got, want)
	}
	if first, again := Current(), Current(); first != again {
		t.Errorf("Current changed between two calls: %q, then %q", first, again)
	}
}
