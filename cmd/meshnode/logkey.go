package main

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/meshnode/meshnode/internal/signingkey"
)

// addLogKeyFlag adds --log-key, the file of the log's signing key.
func addLogKeyFlag(fs *pflag.FlagSet) *string {
	return fs.String("log-key", "", "the log's signing key, a file outside the node (default: $"+signingkey.EnvFile+", else the key in $"+signingkey.EnvKey+", else DIR.log-key when it exists)")
}

// loadLogKey reads the signing key the flag, the environment or the
// default place gives; "" when none does.
func loadLogKey(flag, dir string) (string, error) {
	skey, err := signingkey.Find(flag, dir)
	if errors.Is(err, signingkey.ErrInsideNode) {
		return "", usagef("move the key outside the node's directory and pass --log-key FILE", "%v", err)
	}
	return skey, err
}
