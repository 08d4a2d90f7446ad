package node

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Errors ReadFile and Stat wrap, for callers that say what to do.
var (
	// ErrSymlink: a symbolic link where the node publishes a file. The site
	// would ship its target (a runner's .git/config, say) or the link
	// itself, so it is refused rather than followed.
	ErrSymlink = errors.New("a symbolic link; the node publishes only regular files")
	// ErrNotRegular: a directory, device or pipe where a file should be.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: more than the caller's limit (MaxFileBytes for
	// published files).
	ErrTooLarge = errors.New("too large")
)

// Stat returns the FileInfo of file (a slash path relative to dir) without
// following a symbolic link at any step: it fails with ErrSymlink when
// file or any directory on the way to it is a link, and with an error
// satisfying errors.Is(err, fs.ErrNotExist) when it is absent. A path
// that leaves dir is an error.
func Stat(dir, file string) (fs.FileInfo, error) {
	root, err := openInside(dir, file)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return lstatSteps(root, file)
}

// openInside opens dir as a root for file, a slash path that must stay
// inside it.
func openInside(dir, file string) (*os.Root, error) {
	if !filepath.IsLocal(filepath.FromSlash(file)) {
		return nil, fmt.Errorf("%s: not a path inside the node", file)
	}
	return os.OpenRoot(dir)
}

func lstatSteps(root *os.Root, file string) (fs.FileInfo, error) {
	parts := strings.Split(path.Clean(file), "/")
	var fi fs.FileInfo
	for i := range parts {
		p := path.Join(parts[:i+1]...)
		var err error
		if fi, err = root.Lstat(filepath.FromSlash(p)); err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is %w", p, ErrSymlink)
		}
		if i < len(parts)-1 && !fi.IsDir() {
			return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
		}
	}
	return fi, nil
}

// ReadFile reads file (a slash path relative to dir) when it is a regular
// file of at most max bytes reached without a symbolic link; otherwise it
// fails with ErrSymlink, ErrNotRegular or ErrTooLarge, never reading more
// than max+1 bytes. An absent file gives an error satisfying
// errors.Is(err, fs.ErrNotExist).
func ReadFile(dir, file string, max int64) ([]byte, error) {
	root, err := openInside(dir, file)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	fi, err := lstatSteps(root, file)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %w", file, ErrNotRegular)
	}
	if fi.Size() > max {
		return nil, tooLarge(file, fi.Size(), max)
	}
	return readOpened(root, filepath.FromSlash(file), file, max)
}

// readOpened reads name, opened in root, when what was opened is a
// regular file of at most max bytes, never reading more than max+1; file
// names it in errors.
func readOpened(root *os.Root, name, file string, max int64) ([]byte, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %w", file, ErrNotRegular)
	}
	if fi.Size() > max {
		return nil, tooLarge(file, fi.Size(), max)
	}
	data, err := readSized(f, fi.Size(), max+1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if int64(len(data)) > max {
		return nil, tooLarge(file, int64(len(data)), max)
	}
	return data, nil
}

// readSized reads r to its end, but no more than limit bytes, into one
// slice made for size bytes and the read that finds the end: io.ReadAll
// starts at 512 bytes and grows, which made loading a node of 20,000
// traces allocate twice what it read.
func readSized(r io.Reader, size, limit int64) ([]byte, error) {
	r = io.LimitReader(r, limit)
	data := make([]byte, 0, min(size, limit)+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func tooLarge(file string, size, max int64) error {
	return fmt.Errorf("%s is %w: %d bytes, more than the %d allowed", file, ErrTooLarge, size, max)
}
