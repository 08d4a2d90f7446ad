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
	v, goVersion := "(devel)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		v, goVersion = bi.Main.Version, bi.GoVersion
	}
	fmt.Fprintf(e.stdout, "meshnode %s %s\n", v, goVersion)
	return nil
}
