package buildid

import (
	"runtime/debug"
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
