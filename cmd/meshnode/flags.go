package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/pflag"
)

// nodeFlags are the flags every command that works on a node shares.
type nodeFlags struct {
	dir string
	now string
}

func (nf *nodeFlags) add(fs *pflag.FlagSet) {
	nf.addDir(fs)
	fs.StringVar(&nf.now, "now", "", "run as if the time were this RFC3339 instant")
}

// addDir adds --dir alone, for a command whose result does not depend on
// the time: it takes no --now, rather than one it would ignore.
func (nf *nodeFlags) addDir(fs *pflag.FlagSet) {
	fs.StringVar(&nf.dir, "dir", ".", "the node's directory")
}

// existingDir refuses a --dir that is not a directory: a mistyped one
// would otherwise be created (trace new) or built as an empty node (build,
// serve).
func (nf *nodeFlags) existingDir(command string) error {
	fi, err := os.Stat(nf.dir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return usagef("pass --dir the node's directory", "%s: --dir %s is a file, not a directory", command, nf.dir)
	case errors.Is(err, fs.ErrNotExist):
		return usagef("pass --dir the node's directory (the clone of your fork)", "%s: --dir %s does not exist", command, nf.dir)
	}
	return fmt.Errorf("%s: %w", command, err)
}

// clock returns the time source --now asks for.
func (nf *nodeFlags) clock(e *env) (func() time.Time, error) {
	if nf.now == "" {
		return e.now, nil
	}
	t, err := time.Parse(time.RFC3339, nf.now)
	if err != nil {
		return nil, usagef("use a time like 2026-03-01T12:00:00Z", "--now %q is not an RFC3339 time", nf.now)
	}
	t = t.UTC()
	return func() time.Time { return t }, nil
}

// newFlagSet makes a FlagSet whose -h prints the command's usage text and
// whose parse errors become usage errors.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args and turns -h and flag mistakes into the right errors.
func parseFlags(e *env, fs *pflag.FlagSet, args []string) error {
	c := commands[fs.Name()]
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		fmt.Fprint(e.stdout, c.usage)
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		return pflag.ErrHelp
	}
	if err != nil {
		return usagef(fmt.Sprintf("run 'meshnode %s -h' for its flags", c.name), "%s: %v", c.name, err)
	}
	return nil
}
