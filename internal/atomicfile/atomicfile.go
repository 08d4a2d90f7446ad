// Package atomicfile writes files so that a crash leaves either the old
// bytes or the new bytes on disk, never a torn mix.
package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile writes data to path through a temporary file in the same
// directory: write, fsync, rename over path, fsync the directory. The
// temporary file is removed on any error. Missing parent directories are
// created.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	if err := write(path, data, perm, true, replace); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// CreateFile is WriteFile that never replaces a file: when path exists,
// whoever wrote it and however recently, it fails with an error wrapping
// fs.ErrExist and leaves the file as it was. The new file appears whole:
// it is a hard link to the written temporary, which the kernel refuses to
// make over an existing name, so two writers cannot both succeed.
func CreateFile(path string, data []byte, perm os.FileMode) error {
	if err := write(path, data, perm, true, create); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// CreateFileUnsynced is CreateFile without its fsyncs, durable once
// SyncFS returns (see WriteFileUnsynced).
func CreateFileUnsynced(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false, create)
}

// replace and create put a written temporary at its name: over what is
// there, or only where nothing is.
func replace(tmp, path string) error { return os.Rename(tmp, path) }

func create(tmp, path string) error {
	if err := os.Link(tmp, path); err != nil {
		return err
	}
	os.Remove(tmp) // a temporary left here is removed by RemoveTemps
	return nil
}

// WriteFileUnsynced is WriteFile without its fsyncs: every reader sees
// the old bytes or the new ones, never a mix, and a process that dies at
// any point leaves no torn file, but the new bytes are durable against a
// power loss only once SyncFS has flushed the file system. A caller that
// writes many files calls SyncFS once after them, before it records that
// they are written.
func WriteFileUnsynced(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false, replace)
}

// write writes data to a temporary file beside path, fsyncs it when sync
// is set, and puts it at path with place.
func write(path string, data []byte, perm os.FileMode, sync bool, place func(tmp, path string) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+tempInfix+"*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if sync {
		if err = tmp.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", path, err)
		}
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = place(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteFileIfChanged is WriteFile that leaves path untouched (bytes and
// mtime) when it already holds exactly data. It reports whether it wrote.
func WriteFileIfChanged(path string, data []byte, perm os.FileMode) (bool, error) {
	if same(path, data) {
		return false, nil
	}
	if err := WriteFile(path, data, perm); err != nil {
		return false, err
	}
	return true, nil
}

// same reports whether the file at path holds exactly data. It reads the
// file only when its size is data's: a file of another size (one grown
// huge by damage) differs without a byte of it read.
func same(path string, data []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() || info.Size() != int64(len(data)) {
		return false
	}
	old, err := io.ReadAll(io.LimitReader(f, int64(len(data))+1))
	return err == nil && bytes.Equal(old, data)
}

// tempInfix marks the temporary files WriteFile creates.
const tempInfix = ".tmp-"

// isTemp reports whether name is one WriteFile's os.CreateTemp gives:
// ".NAME.tmp-" then the decimal digits CreateTemp puts for "*". Nothing
// else is ever removed, whoever else keeps dotfiles in the directory.
func isTemp(name string) bool {
	i := strings.LastIndex(name, tempInfix)
	if i < 2 || name[0] != '.' || i+len(tempInfix) == len(name) {
		return false
	}
	for _, c := range name[i+len(tempInfix):] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// RemoveTemps deletes the temporary files that writes killed mid-way left
// in dir (a crash between create and rename). Call it only while no write
// into dir can be under way. A missing dir is not an error.
func RemoveTemps(dir string) error {
	entries, err := readDirUnsorted(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.Type().IsRegular() && isTemp(name) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("remove stale temp file: %w", err)
			}
		}
	}
	return nil
}

// readDirUnsorted lists dir in the order the file system gives: a
// heartbeat lists validations/ at every open (54,750 files after three
// years of 50 a day), and sorting the names is most of what os.ReadDir
// costs there.
func readDirUnsorted(dir string) ([]fs.DirEntry, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

// SyncDir fsyncs the directory dir, so that the renames and removals made
// in it survive a crash.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	// Some filesystems refuse fsync on a directory; the rename is still
	// atomic there, so that error is not worth failing the write for.
	_ = d.Sync()
	return nil
}
