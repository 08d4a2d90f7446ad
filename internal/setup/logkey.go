package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/meshnode/meshnode/internal/signingkey"
	"github.com/meshnode/meshnode/internal/translog"
)

// settleLogKey gives the node its log key: the key already at o's key
// file when it is this node's (a second init keeps the node's identity),
// else a new pair whose private half it writes there. A key there for
// another URL is a *KeyError, or with o.Force moved aside to FILE.bak-N
// first, never destroyed. It returns the
// verifier key IDENTITY.md publishes.
func settleLogKey(o Options, nodeURL string, res *Result) (string, error) {
	path := o.LogKeyFile
	if path == "" {
		def, err := signingkey.DefaultPath(o.Dir)
		if err != nil {
			return "", err
		}
		path = def
	}
	origin, err := translog.Origin(nodeURL)
	if err != nil {
		return "", err
	}
	res.LogKeyFile = path
	if _, err := os.Stat(path); err == nil {
		skey, err := signingkey.Load(path, o.Dir)
		if err != nil {
			return "", err
		}
		vkey, err := translog.VerifierKey(skey)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(vkey, origin+"+") {
			return vkey, nil
		}
		if !o.Force {
			return "", &KeyError{File: path, Origin: origin}
		}
		if err := keepKey(path, res); err != nil {
			return "", err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("log key: %w", err)
	}
	skey, vkey, err := translog.GenerateKey(origin)
	if err != nil {
		return "", err
	}
	if err := signingkey.Write(path, o.Dir, skey); err != nil {
		return "", err
	}
	res.LogKeyNew = true
	return vkey, nil
}

// KeyError is a signing key, at the file init would use, made for another
// URL than the node's.
type KeyError struct {
	File, Origin string
}

func (e *KeyError) Error() string {
	return fmt.Sprintf("log key %s is not for %s", e.File, e.Origin)
}

// keepKey moves the key at path to the first free path.bak-N, readable by
// its owner only as before.
func keepKey(path string, res *Result) error {
	for n := 1; ; n++ {
		bak := fmt.Sprintf("%s.bak-%d", path, n)
		if _, err := os.Lstat(bak); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("check %s: %w", bak, err)
		}
		if err := os.Rename(path, bak); err != nil {
			return fmt.Errorf("keep the old log key: %w", err)
		}
		res.Kept = append(res.Kept, Kept{File: path, Copy: bak})
		return nil
	}
}
