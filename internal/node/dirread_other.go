//go:build !linux

package node

import (
	"io/fs"
	"os"
)

// publishedDir is a published directory opened once as a root, whose
// files are read through it.
type publishedDir struct{ root *os.Root }

// openPublishedDir opens the directory p.
func openPublishedDir(p string) (*publishedDir, error) {
	root, err := os.OpenRoot(p)
	if err != nil {
		return nil, err
	}
	return &publishedDir{root: root}, nil
}

// list returns the directory's entries sorted by name.
func (d *publishedDir) list() ([]fs.DirEntry, error) { return fs.ReadDir(d.root.FS(), ".") }

// read reads the entry name when it is a regular file of at most max
// bytes (readOpened).
func (d *publishedDir) read(name, file string, max int64) ([]byte, error) {
	return readOpened(d.root, name, file, max)
}

func (d *publishedDir) close() error { return d.root.Close() }
