package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signingkey"
)

func init() {
	register(&command{
		name:    "sign",
		summary: "extend and sign the node's log from its own MANIFEST.md; rotate its key or restart it",
		usage: `Usage: meshnode sign [--dir DIR] [--now RFC3339] [--log-key FILE] [--new-log-key FILE | --restart]

Extends the node's signed log (log/, docs/protocol.md §3.4) to every row the
node publishes (MANIFEST.md and its archive pages) and signs its checkpoint,
exactly as a heartbeat with the key does. It is the step that holds the key
when the heartbeat runs without it (docs/github.md, "The log's signing key"):
it reads only the node's own files, nothing from peers and no network.

The key is the file --log-key or MESHNODE_LOG_KEY_FILE names, else the key
itself in MESHNODE_LOG_KEY (a GitHub secret), else the file init wrote
beside the node. A log already current is left as it was.

With a new key (--new-log-key FILE, or the key itself in
MESHNODE_NEW_LOG_KEY) it rotates the log to it: a statement both keys sign,
in log/key/, listed in MANIFEST.md; a checkpoint both keys sign; and
IDENTITY.md's log_key set to the new key. Every file must be published
first (a heartbeat runs before). Then the new key is the log's key: it
says which secret to replace. Once IDENTITY.md names the new key, the same
command signs with the new key alone.

With --restart, for a log whose key is lost, the key given is the log's
new key: the same entries are signed by it under a restart statement, and
IDENTITY.md's log_key is set to it. Peers that pinned the old key refuse
the log until their operators re-pin it (docs/decisions.md, "Losing the
log's key").

It exits 0 when the log is signed or current, and when there is no key (it
says how to set one, so a fork without the secret still runs); 2 when the
key is not the one IDENTITY.md publishes; 1 when the log cannot extend (its
files are not a prefix of the rows: nothing is written).

Examples:
  meshnode sign
  MESHNODE_LOG_KEY="$(cat ~/keys/mynode.log-key)" meshnode sign --dir ~/node
  meshnode sign --log-key ~/keys/old.log-key --new-log-key ~/keys/new.log-key
  meshnode sign --restart --log-key ~/keys/new.log-key

Flags:
`,
		run: runSignCmd,
	})
}

func runSignCmd(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("sign")
	var nf nodeFlags
	nf.add(fs)
	keyFlag := addLogKeyFlag(fs)
	newKeyFlag := fs.String("new-log-key", "", "rotate the log to the key in this file, outside the node (default: the key itself in $"+signingkey.EnvNewKey+")")
	restart := fs.Bool("restart", false, "the log's key is lost: restart the log under the key --log-key gives, for peers' operators to re-pin")
	if err := parseFlagsNoArgs(e, fs, args); err != nil {
		return err
	}
	if *restart && *newKeyFlag != "" {
		return usagef("rotate with the old key and --new-log-key, or restart with the new key as --log-key", "sign: --restart and --new-log-key together")
	}
	key, err := loadLogKey(*keyFlag, nf.dir)
	if err != nil {
		return err
	}
	cfg, err := config.Load(nf.dir)
	if err != nil {
		return err
	}
	now, err := nf.clock(e)
	if err != nil {
		return err
	}
	if *restart {
		return runRestart(e, nf.dir, cfg, key, now())
	}
	newKey, err := loadNewLogKey(*newKeyFlag, nf.dir)
	switch {
	case err != nil:
		return err
	case newKey != "":
		return runRotate(e, nf.dir, cfg, key, newKey, now())
	}
	return runSign(e, nf.dir, cfg.URL, key)
}

// runSign extends and signs the log with key.
func runSign(e *env, dir, url, key string) error {
	changed, err := heartbeat.Sign(dir, url, key)
	if unsigned, ok := errors.AsType[*heartbeat.UnsignedError](err); ok {
		if !unsigned.NoKey {
			return usagef("sign with the key whose public half IDENTITY.md publishes; if that key is lost, see docs/publishing.md, \"Losing the key\" (sign --restart)", "sign: %s", unsigned.Reason)
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
