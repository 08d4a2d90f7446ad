// Package signingkey keeps the private key that signs the node's log
// (internal/translog): where it lives, reading it and writing a new one.
// The key never enters the node's directory, which is a public
// repository: a path inside it is refused, for reading and for writing.
package signingkey

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/translog"
)

// EnvFile names the environment variable that gives the key's file when
// no --log-key flag does.
const EnvFile = "MESHNODE_LOG_KEY_FILE"

// EnvKey names the environment variable that holds the key itself, as a
// GitHub environment secret hands it to the step that signs
// (docs/github.md, "The log's signing key"); read when neither --log-key
// nor $MESHNODE_LOG_KEY_FILE names a file.
const EnvKey = "MESHNODE_LOG_KEY"

// EnvNewKey names the environment variable that holds the key a rotation
// hands the log to (`meshnode sign --new-log-key`), as a GitHub
// environment secret gives it to the signing step (docs/publishing.md,
// "Rotating the key"); read when no --new-log-key flag names a file.
const EnvNewKey = "MESHNODE_NEW_LOG_KEY"

// maxKeyBytes bounds a key file: a signer key is about 100 bytes.
const maxKeyBytes = 4 << 10

// ErrInsideNode: the key's file lies in the node's directory, which is
// published.
var ErrInsideNode = errors.New("the log's signing key must live outside the node's directory (it is published); name a file elsewhere")

// Find returns the signer key for the node at dir: from the file flag
// names, else $MESHNODE_LOG_KEY_FILE's, else $MESHNODE_LOG_KEY itself,
// else the file at DefaultPath when there is one; "" when none gives one.
func Find(flag, dir string) (string, error) {
	if flag == "" && os.Getenv(EnvFile) == "" {
		if text := os.Getenv(EnvKey); text != "" {
			return parse(text, "$"+EnvKey)
		}
	}
	path, err := Path(flag, dir)
	if err != nil {
		return "", err
	}
	return Load(path, dir)
}

// FindNew returns the signer key a rotation moves the node at dir to:
// from the file flag names, else $MESHNODE_NEW_LOG_KEY itself; "" when
// neither gives one.
func FindNew(flag, dir string) (string, error) {
	if flag != "" {
		return Load(flag, dir)
	}
	if text := os.Getenv(EnvNewKey); text != "" {
		return parse(text, "$"+EnvNewKey)
	}
	return "", nil
}

// Path is the key's file for the node at dir: flag when set, else
// $MESHNODE_LOG_KEY_FILE, else DefaultPath when a file is there, else ""
// (no key).
func Path(flag, dir string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if env := os.Getenv(EnvFile); env != "" {
		return env, nil
	}
	def, err := DefaultPath(dir)
	if err != nil {
		return "", nil
	}
	if _, err := os.Stat(def); err != nil {
		return "", nil
	}
	return def, nil
}

// DefaultPath is where `meshnode init` writes the key when no flag or
// environment names a file, and where the heartbeat then finds it: beside
// the node's directory, never in it ("<dir>.log-key").
func DefaultPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if filepath.Dir(abs) == abs {
		return "", errors.New("the node is the file system's root: name the key's file with --log-key")
	}
	return abs + ".log-key", nil
}

// Load reads the signer key at path for the node at dir; "" for an empty
// path. A file inside dir is refused.
func Load(path, dir string) (string, error) {
	if path == "" {
		return "", nil
	}
	if err := outside(path, dir); err != nil {
		return "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("log key: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyBytes+1))
	if err != nil {
		return "", fmt.Errorf("log key %s: %w", path, err)
	}
	if len(data) > maxKeyBytes {
		return "", fmt.Errorf("log key %s: larger than %d bytes: not a key", path, maxKeyBytes)
	}
	return parse(string(data), path)
}

// parse checks that text, read from where, is a signer key. Its errors
// never repeat the text: it is a secret.
func parse(text, where string) (string, error) {
	skey := strings.TrimSpace(text)
	if _, err := translog.VerifierKey(skey); err != nil {
		return "", fmt.Errorf("log key %s: %w", where, err)
	}
	return skey, nil
}

// Write stores a new signer key at path, readable by its owner only, and
// refuses to replace a file there or to write inside dir.
func Write(path, dir, skey string) error {
	if err := outside(path, dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("log key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("log key: %w", err)
	}
	if _, err := f.WriteString(skey + "\n"); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("log key: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("log key: %w", err)
	}
	return f.Close()
}

// outside refuses a path inside dir, links resolved as far as they exist.
func outside(path, dir string) error {
	p, err := resolve(path)
	if err != nil {
		return err
	}
	d, err := resolve(dir)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(d, p); err == nil && filepath.IsLocal(rel) {
		return fmt.Errorf("log key %s: %w", path, ErrInsideNode)
	}
	return nil
}

// resolve makes path absolute with its existing part's links resolved.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	var rest []string
	for p := abs; ; p = filepath.Dir(p) {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(p) == p {
			return "", err
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}
