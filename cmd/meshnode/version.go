package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print the version of meshnode",
		usage: `Usage: meshnode version

Prints the module version and the Go version meshnode was built with.
`,
		run: runVersion,
	})
}

func runVersion(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("version")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("run 'meshnode version' alone", "version: unexpected argument %q", fs.Arg(0))
	}
	goVersion := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
	}
	fmt.Fprintf(e.stdout, "meshnode %s %s\n", moduleVersion(), goVersion)
	return nil
}

// moduleVersion is the version the binary was built at, "(devel)" for a
// build from a checkout. It goes into the User-Agent peers see.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
