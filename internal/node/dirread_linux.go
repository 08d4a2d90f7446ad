package node

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
)

// publishedDir is a published directory opened once, whose files are
// read through its descriptor with the calls a read needs and no more:
// an os.Root lstats every entry it lists and makes each file it opens
// non-blocking, tries to add it to the poller and makes it blocking
// again, eleven calls to the kernel a file where openat, fstat, two
// reads and close do, which an unchanged site rebuild of 10,000 traces
// paid 10,000 times (docs/performance.md, "The unchanged rebuild's
// reading").
type publishedDir struct {
	f    *os.File
	fd   int
	name string
}

// openPublishedDir opens the directory p, refusing a symbolic link.
func openPublishedDir(p string) (*publishedDir, error) {
	fd, err := openRetrying(func() (int, error) {
		return syscall.Open(p, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	return &publishedDir{f: os.NewFile(uintptr(fd), p), fd: fd, name: p}, nil
}

// list returns the directory's entries sorted by name, their types as
// the directory gives them.
func (d *publishedDir) list() ([]fs.DirEntry, error) {
	entries, err := d.f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// read reads the entry name when it is, once opened, a regular file of
// at most max bytes, never reading more than max+1; a symbolic link or a
// pipe put in its place since it was listed is refused without blocking.
// file names it in errors.
func (d *publishedDir) read(name, file string, max int64) ([]byte, error) {
	fd, err := openRetrying(func() (int, error) {
		return syscall.Openat(d.fd, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	})
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is %w", file, ErrSymlink)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: file, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fmt.Errorf("%s is %w", file, ErrNotRegular)
	}
	if st.Size > max {
		return nil, tooLarge(file, st.Size, max)
	}
	data, err := readSized(fdReader(fd), st.Size, max+1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if int64(len(data)) > max {
		return nil, tooLarge(file, int64(len(data)), max)
	}
	return data, nil
}

func (d *publishedDir) close() error { return d.f.Close() }

// openRetrying calls open again when a signal interrupted it.
func openRetrying(open func() (int, error)) (int, error) {
	for {
		fd, err := open()
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// fdReader reads a file descriptor of a regular file.
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(r), p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}
