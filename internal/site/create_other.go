//go:build !unix

package site

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// create writes data to a new file at path, creating its directory if it
// is missing, and sets its mode to sitePerm when chmod is set.
func create(path string, data []byte, chmod bool) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, sitePerm)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
		}
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, sitePerm)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil && chmod {
		err = f.Chmod(sitePerm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
