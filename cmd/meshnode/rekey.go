package main

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signingkey"
	"github.com/meshnode/meshnode/internal/translog"
)

// replaceSecretHint tells the owner which secret the new key goes in
// once the log is rotated (docs/publishing.md, "Rotating the key").
var replaceSecretHint = "now make the new key the log's key: on GitHub, set the secret " + signingkey.EnvKey +
	" of the environment log-signing to the new key and delete " + signingkey.EnvNewKey +
	"; elsewhere, replace the old key's file with the new one (--log-key, " + signingkey.EnvFile + ")"

// rotatedTo reports whether IDENTITY.md already publishes newKey's
// public half: the rotation is done.
func rotatedTo(dir, newKey string) (bool, error) {
	vkey, err := translog.VerifierKey(newKey)
	if err != nil {
		return false, fmt.Errorf("new log key: %w", err)
	}
	identity, err := node.ReadFile(dir, node.IdentityFile, node.MaxTopFileBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("read %s: %w", node.IdentityFile, err)
	}
	return slices.Equal(translog.Keys(identity), []string{vkey}), nil
}

// loadNewLogKey reads the key a rotation moves to, from the flag's file or
// $MESHNODE_NEW_LOG_KEY; "" when neither gives one.
func loadNewLogKey(flag, dir string) (string, error) {
	skey, err := signingkey.FindNew(flag, dir)
	if errors.Is(err, signingkey.ErrInsideNode) {
		return "", usagef("move the key outside the node's directory and pass --new-log-key FILE", "%v", err)
	}
	return skey, err
}

// runRotate rotates the log from key to newKey and says what to do next;
// once IDENTITY.md names newKey, it signs with newKey instead.
func runRotate(e *env, dir string, cfg *config.Config, key, newKey string, now time.Time) error {
	rotated, err := rotatedTo(dir, newKey)
	if err != nil {
		return err
	}
	if rotated {
		fmt.Fprintf(e.stdout, "log: %s already names the new key: signing with it; %s\n", node.IdentityFile, replaceSecretHint)
		return runSign(e, dir, cfg.URL, newKey)
	}
	if key == "" {
		return usagef("give the current key too (--log-key, "+signingkey.EnvKey+"): it signs the rotation", "sign: no signing key to rotate from")
	}
	change, err := heartbeat.Rotate(dir, cfg, key, newKey, now)
	if unsigned, ok := errors.AsType[*heartbeat.UnsignedError](err); ok {
		return usagef("rotate from the key whose public half IDENTITY.md publishes", "sign: %s", unsigned.Reason)
	}
	if err != nil {
		return fmt.Errorf("rotate: %w", err)
	}
	fmt.Fprintf(e.stdout, "log: key rotated at size %d (%s, listed in %s)\nlog_key: %s\n%s\n", change.Size, change.File, node.ManifestFile, change.Key, replaceSecretHint)
	return nil
}

// runRestart restarts the log under key and says what peers will see.
func runRestart(e *env, dir string, cfg *config.Config, key string, now time.Time) error {
	if key == "" {
		return usagef("make a new key (meshnode keygen) and give it as --log-key", "sign --restart: no signing key")
	}
	change, err := heartbeat.Restart(dir, cfg, key, now)
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	fmt.Fprintf(e.stdout, "log: restarted under a new key at size %d (%s)\nlog_key: %s\n"+
		"peers that pinned %s refuse the log until their operators re-pin it: tell them (docs/decisions.md, \"Losing the log's key\")\n",
		change.Size, change.File, change.Key, change.Previous)
	return nil
}
