package main

import (
	"context"
	"fmt"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/signingkey"
	"github.com/meshnode/meshnode/internal/translog"
)

func init() {
	register(&command{
		name:    "keygen",
		summary: "make a new signing key for the node's log, for a rotation or a restart",
		usage: `Usage: meshnode keygen --out FILE [--dir DIR]

Makes a new ed25519 key pair named for the node's log (its url without the
scheme, docs/protocol.md §3.4), writes the private key to FILE, readable by
its owner only, and prints the public key. FILE must be outside the node's
directory (it is published) and must not exist. Nothing in the node
changes: the key becomes the log's through 'meshnode sign --new-log-key'
(a rotation, the old key signs it) or 'meshnode sign --restart' (the old
key is lost), docs/publishing.md.

Examples:
  meshnode keygen --out ~/keys/mynode-2.log-key
  meshnode keygen --dir ~/node --out ~/keys/mynode-2.log-key

Flags:
`,
		run: runKeygenCmd,
	})
}

func runKeygenCmd(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("keygen")
	var nf nodeFlags
	nf.addDir(fs)
	out := fs.String("out", "", "the file to write the new private key to, outside the node")
	if err := parseFlagsNoArgs(e, fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("name the key's file: meshnode keygen --out FILE", "keygen: no --out")
	}
	cfg, err := config.Load(nf.dir)
	if err != nil {
		return err
	}
	origin, err := translog.Origin(cfg.URL)
	if err != nil {
		return err
	}
	skey, vkey, err := translog.GenerateKey(origin)
	if err != nil {
		return err
	}
	if err := signingkey.Write(*out, nf.dir, skey); err != nil {
		return usagef("name a file outside the node that does not exist yet", "keygen: %v", err)
	}
	fmt.Fprintf(e.stdout, "wrote a new signing key for %s to %s\nlog_key: %s\n"+
		"rotate to it: meshnode sign --new-log-key %s (on GitHub: the secret %s)\n"+
		"or, if the log's key is lost: meshnode sign --restart --log-key %s\n",
		origin, *out, vkey, *out, signingkey.EnvNewKey, *out)
	return nil
}
