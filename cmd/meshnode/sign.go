package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/node"
)

func init() {
	register(&command{
		name:    "sign",
		summary: "extend and sign the node's log from its own MANIFEST.md",
		usage: `Usage: meshnode sign [--dir DIR] [--log-key FILE]

Extends the node's signed log (log/, docs/protocol.md §3.4) to every row the
node publishes (MANIFEST.md and its archive pages) and signs its checkpoint,
exactly as a heartbeat with the key does. It is the step that holds the key
when the heartbeat runs without it (docs/github.md, "The log's signing key"):
it reads only the node's own files, nothing from peers and no network.

The key is the file --log-key or MESHNODE_LOG_KEY_FILE names, else the key
itself in MESHNODE_LOG_KEY (a GitHub secret), else the file init wrote
beside the node. A log already current is left as it was.

It exits 0 when the log is signed or current, and when there is no key (it
says how to set one, so a fork without the secret still runs); 2 when the
key is not the one IDENTITY.md publishes; 1 when the log cannot extend (its
files are not a prefix of the rows: nothing is written).

Examples:
  meshnode sign
  MESHNODE_LOG_KEY="$(cat ~/keys/mynode.log-key)" meshnode sign --dir ~/node

Flags:
`,
		run: runSignCmd,
	})
}

func runSignCmd(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("sign")
	var nf nodeFlags
	nf.addDir(fs)
	keyFlag := addLogKeyFlag(fs)
	if err := parseFlagsNoArgs(e, fs, args); err != nil {
		return err
	}
	key, err := loadLogKey(*keyFlag, nf.dir)
	if err != nil {
		return err
	}
	cfg, err := config.Load(nf.dir)
	if err != nil {
		return err
	}
	changed, err := heartbeat.Sign(nf.dir, cfg.URL, key)
	if unsigned, ok := errors.AsType[*heartbeat.UnsignedError](err); ok {
		if !unsigned.NoKey {
			return usagef("sign with the key whose public half IDENTITY.md publishes", "sign: %s", unsigned.Reason)
		}
		fmt.Fprintf(e.stdout, "log: not signed: %s\n", unsigned.Reason)
		if os.Getenv("GITHUB_ACTIONS") == "true" {
			fmt.Fprintf(e.stdout, "::notice title=log not signed::%s\n", unsigned.Reason)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if changed {
		fmt.Fprintf(e.stdout, "log: signed (%s/ updated)\n", node.LogDir)
	} else {
		fmt.Fprintf(e.stdout, "log: current, nothing changed\n")
	}
	return nil
}
