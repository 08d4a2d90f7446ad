package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/atomicfile"
)

// A split state file is a directory of small JSON files, one per peer, so
// a heartbeat in which one peer changed rewrites that peer's file only,
// and no file grows with the whole mesh. It is named by the path of the
// single file older nodes kept (mesh-state/ledger.json): its files live in
// that path without ".json" (mesh-state/ledger/), and a file still at the
// old path is read as well and removed by the next write, which is how an
// old node's state migrates (docs/contracts.md).

// ReadFlat reads the flat split state named by path (copies/): the old
// single file (nil when there is none) and every *.json file of its
// directory, by key (names.go). A file it cannot read is a *CorruptError.
func ReadFlat(path string) (legacy []byte, files map[string][]byte, err error) {
	return (*Cache)(nil).readFlat(path)
}

// readFlat is ReadFlat that opens only the files of the directory that
// changed since c last read or wrote them, and keeps what it reads. The
// bytes it returns are shared with c: callers must not change them. A
// sharded state reads with it what a node not migrated yet keeps in a
// file per peer.
func (c *Cache) readFlat(path string) (legacy []byte, files map[string][]byte, err error) {
	legacy, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		legacy, err = nil, nil
	}
	if err != nil {
		return nil, nil, &CorruptError{Path: path, Err: err}
	}
	dir := Dir(path)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return legacy, map[string][]byte{}, nil
	}
	if err != nil {
		return nil, nil, &CorruptError{Path: dir, Err: err}
	}
	files = make(map[string][]byte, len(entries))
	for e, key := range current(dir, entries) {
		p := filepath.Join(dir, e.Name())
		data, err := c.readFile(p, e)
		if err != nil {
			return nil, nil, &CorruptError{Path: p, Err: err}
		}
		files[key] = data
	}
	return legacy, files, nil
}

// current returns the files of entries, the split directory dir's, that
// hold a key's records, with their keys: an older node's name of a key
// (Migrate) counts only where the key's file of the new name is not
// there, as the writes write that one.
func current(dir string, entries []fs.DirEntry) map[fs.DirEntry]string {
	out := make(map[fs.DirEntry]string, len(entries))
	newer := map[string]bool{}
	for _, e := range entries {
		if isStateFile(e) {
			if key, old := keyOf(dir, e.Name()); !old {
				newer[key] = true
			}
		}
	}
	for _, e := range entries {
		if !isStateFile(e) {
			continue
		}
		if key, old := keyOf(dir, e.Name()); !old || !newer[key] {
			out[e] = key
		}
	}
	return out
}

// readFile reads the file of directory entry e at p, or takes it from c
// when e is the file c kept.
func (c *Cache) readFile(p string, e fs.DirEntry) ([]byte, error) {
	if c == nil {
		return readFile(p)
	}
	info, err := e.Info()
	if err != nil {
		return nil, err
	}
	if data, ok := c.get(p, info); ok {
		return data, nil
	}
	data, info, err := readFileInfo(p)
	if err != nil {
		return nil, err
	}
	c.put(p, data, info)
	return data, nil
}

// RewriteFlat makes the flat split state named by path hold exactly
// files, by key: it writes each file whose bytes differ from was[name]
// (or, with was nil, from the file on disk) atomically, moves a file an
// older node named that it left alone to its name (MigrateFlat), removes
// the directory's other *.json files, then the old single file. It
// reports whether anything on disk changed. A crash at any point leaves a
// state ReadFlat reads back whole: the old file goes last.
func RewriteFlat(path string, files, was map[string][]byte) (bool, error) {
	return (*Cache)(nil).rewriteFlat(path, files, was)
}

func (c *Cache) rewriteFlat(path string, files, was map[string][]byte) (bool, error) {
	dir := Dir(path)
	changed, err := writeAll(dir, files, was, c)
	if err != nil {
		return changed, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return changed, fmt.Errorf("read %s: %w", dir, err)
	}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	for _, e := range entries {
		if !isStateFile(e) {
			continue
		}
		key, old := keyOf(dir, e.Name())
		_, keep := files[key]
		if keep && !old {
			continue
		}
		p := filepath.Join(dir, e.Name())
		c.put(p, nil, nil)
		if keep {
			// An older node's file holding what was to be written, so
			// left alone by writeAll: moved to its name.
			if err := moveOld(dir, e.Name(), fileName(dir, key), names); err != nil {
				return changed, err
			}
		} else if err := os.Remove(p); err != nil {
			return changed, fmt.Errorf("remove %s: %w", e.Name(), err)
		}
		changed = true
	}
	if err := os.Remove(path); err == nil {
		changed = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return changed, fmt.Errorf("remove %s after splitting it: %w", path, err)
	}
	return changed, nil
}

// writeParallel is how many files writeAll writes at once: each write
// waits for its fsync, and the disk takes many at a time.
const writeParallel = 16

// writeAll writes files into dir, each atomically and only when its bytes
// differ from was, or from the file on disk when was is nil, several at
// once, keeping what it writes in c, and reports whether any changed.
func writeAll(dir string, files, was map[string][]byte, c *Cache) (bool, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var changed atomic.Bool
	var g errgroup.Group
	g.SetLimit(writeParallel)
	for _, name := range names {
		g.Go(func() error {
			p := filepath.Join(dir, fileName(dir, name))
			old, ok := was[name]
			if was == nil {
				var err error
				old, err = readFile(p)
				ok = err == nil
			}
			if ok && bytes.Equal(old, files[name]) {
				return nil
			}
			if err := atomicfile.WriteFile(p, files[name], 0o644); err != nil {
				c.put(p, nil, nil)
				return fmt.Errorf("write %s: %w", name, err)
			}
			c.putWritten(p, files[name], nil)
			if writeHook != nil {
				writeHook(p, len(files[name]))
			}
			changed.Store(true)
			return nil
		})
	}
	err := g.Wait()
	return changed.Load(), err
}

// writeHook, when set (tests and benchmarks only), is told the path and
// size of every file of a split directory written.
var writeHook func(path string, size int)

// readHook, when set (tests only), is told the path of every file of a
// split directory before it is read.
var readHook func(path string)

// readFile reads one file of a split directory: the one place they are
// read, so a test can count the reads.
func readFile(path string) ([]byte, error) {
	data, _, err := readFileInfo(path)
	return data, err
}

// readFileInfo reads one file of a split directory and describes the
// file it read (Cache).
func readFileInfo(path string) ([]byte, fs.FileInfo, error) {
	if readHook != nil {
		readHook(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	// One slice for the file and the read that finds its end:
	// bytes.Buffer.ReadFrom wants 512 bytes free before each read, so it
	// grew every file's buffer to twice its size to see the end.
	data := make([]byte, 0, info.Size()+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, info, nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

// SetReadHook makes hook be told the path of every file of a split
// directory Read or Write reads, until the returned function is called.
// For tests that count how often a command reads each state file.
func SetReadHook(hook func(path string)) (restore func()) {
	old := readHook
	readHook = hook
	return func() { readHook = old }
}

// SetWriteHook makes hook be told the path and size of every file of a
// split directory Write, Rewrite, Update or WriteSome writes, until the
// returned function is called; files are written several at once, so
// hook must be safe for concurrent use. For tests and benchmarks that
// count what a command writes.
func SetWriteHook(hook func(path string, size int)) (restore func()) {
	old := writeHook
	writeHook = hook
	return func() { writeHook = old }
}
