// Package buildid names the code a binary was built from, for caches
// whose contents depend on that code: the heartbeat's derived record and
// the site's build cache are computed again by a binary of other code.
package buildid

import (
	"runtime/debug"
	"strings"
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

// Current is Of the running binary's build information.
func Current() string {
	info, _ := debug.ReadBuildInfo()
	return Of(info)
}
