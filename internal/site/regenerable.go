package site

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// sitePerm is the mode of every file of the site: world-readable, as a
// web server serves it.
const sitePerm = 0o644

// writeRegenerable writes data to path unless the file already holds
// exactly those bytes, in which case it is left alone and keeps its mtime.
//
// Site outputs are regenerable from the node's files, so unlike state they
// are not fsynced (an fsync per file made a cold build of 10,000 traces
// take 14 s): after a crash the next build rewrites whatever is wrong.
// They are still written to a temporary file in the same directory and
// renamed into place, so that `meshnode serve` or a Pages upload never
// reads half a page. Temporaries are dotfiles, which removeStale deletes
// if a crash leaves one behind.
func writeRegenerable(path string, data []byte) (bool, error) {
	if holds(path, data) {
		return false, nil
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, fmt.Errorf("create %s: %w", dir, err)
		}
		tmp, err = os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	}
	if err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	if err := finish(tmp, data, path); err != nil {
		os.Remove(tmp.Name())
		return false, err
	}
	return true, nil
}

// finish writes data to the temporary file, closes it and renames it to
// path.
func finish(tmp *os.File, data []byte, path string) error {
	_, err := tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(sitePerm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename %s: %w", path, err)
	}
	return nil
}

// holds reports whether the regular file at path holds exactly data. The
// size is checked first, so a changed file of another length is never read.
func holds(path string, data []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(data)) {
		return false
	}
	old, err := io.ReadAll(io.LimitReader(f, fi.Size()+1))
	return err == nil && bytes.Equal(old, data)
}

// linkRegenerable puts the node's published file src at path as a hard
// link, unless path already holds data (src's bytes as Load read them).
// A link is one directory entry where a copy is a new inode and its data,
// which is most of a cold build's time on ext4; and peers hash these
// bytes, which a link carries over by construction. Where linking is not
// possible (another filesystem, a filesystem without links) it copies.
//
// Because of the link, a site file must never be edited in place: that
// would edit the node's own file. meshnode only ever replaces site files
// by rename, which leaves the node's file untouched.
//
// A link publishes src as it is now, which is not what Load read if src
// was edited since: src is linked only while its size is len(data), so
// the site never serves bytes its pages and MANIFEST.md do not describe.
// (An edit that keeps the size is not caught: a build runs after the
// heartbeat's commit, with nothing else writing the node.)
func linkRegenerable(src, path string, data []byte) (bool, error) {
	if holds(path, data) {
		return false, nil
	}
	// Where nothing is at path yet (every file of a cold build), the link
	// goes straight there: it appears whole, as a rename would make it,
	// and a link plus a rename cost a cold build of 10,000 traces a second.
	err := linkAs(src, path, data)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return writeRegenerable(path, data)
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
	if err := linkAs(src, tmp, data); err != nil {
		return writeRegenerable(path, data)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return false, fmt.Errorf("rename %s: %w", path, err)
	}
	return true, nil
}

// errEdited: the node's file is no longer what Load read.
var errEdited = errors.New("edited since the node was read")

// linkAs links src at path when src still has data's size: a file edited
// since Load read it is written from data instead (linkRegenerable).
func linkAs(src, path string, data []byte) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if fi.Size() != int64(len(data)) {
		return fmt.Errorf("%s: %w", src, errEdited)
	}
	return link(src, path)
}

// link makes a hard link to src at path, creating path's directory if
// it is missing.
func link(src, path string) error {
	err := os.Link(src, path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
		}
		err = os.Link(src, path)
	}
	return err
}
