//go:build unix

package site

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// create writes data to a new file at path, creating its directory if it
// is missing, and sets its mode to sitePerm when chmod is set. It calls
// the system directly: os.OpenFile adds a fstat, two fcntl and an
// epoll_ctl per file to see whether the file can be polled, which a
// regular file never can, a third of a cold build's system calls.
func create(path string, data []byte, chmod bool) error {
	fd, err := openNew(path)
	if errors.Is(err, syscall.ENOENT) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
		}
		fd, err = openNew(path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	err = writeFull(fd, data)
	if err == nil && chmod {
		err = ignoringEINTR(func() error { return syscall.Fchmod(fd, sitePerm) })
	}
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// openNew creates path, which must not exist, for writing.
func openNew(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, sitePerm)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// writeFull writes all of data to fd, as many writes as it takes.
func writeFull(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return syscall.EIO
		}
		data = data[n:]
	}
	return nil
}

func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}
