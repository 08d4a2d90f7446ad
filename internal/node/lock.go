package node

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/meshnode/meshnode/internal/filelock"
)

// ErrLocked is returned by Lock, unwrapped, when another heartbeat holds the
// lock.
var ErrLocked = errors.New("another heartbeat holds " + LockFile)

// maxHolderBytes bounds what LockHolder reads of the lock file.
const maxHolderBytes = 256

// Lock takes the node's heartbeat lock (an exclusive flock on
// DIR/mesh-state/heartbeat.lock) without waiting. It returns ErrLocked when
// another process holds it. The lock is released by unlock or when the
// process dies, so a crashed heartbeat never wedges the node.
//
// Once it holds the lock it writes who holds it into the file (this
// process's id, host and start time), for LockHolder to tell a heartbeat
// that waits. The note is written in place, not by rename, since the lock
// is on the file itself; it is never committed (lock files are not the
// node's data), and a torn note only shows less.
func Lock(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, filepath.FromSlash(LockFile))
	unlock, err = filelock.TryLock(path)
	if errors.Is(err, filelock.ErrHeld) {
		return nil, ErrLocked
	}
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	note := fmt.Sprintf("pid %d on %s, since %s\n", os.Getpid(), orUnknown(host), time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(path, []byte(note), 0o644); err != nil {
		unlock()
		return nil, fmt.Errorf("note the holder of %s: %w", LockFile, err)
	}
	return unlock, nil
}

// LockHolder says who holds the node's heartbeat lock, as its holder
// noted it ("pid 4242 on ada-laptop, since 2026-03-01T12:00:00Z"); "" when
// the file holds no note (a node from before notes, or none held). The
// file is the holder's to write, so only one line of printable text is
// shown.
func LockHolder(dir string) string {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(LockFile)))
	if err != nil {
		return ""
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, maxHolderBytes))
	line, _, _ := strings.Cut(string(data), "\n")
	if strings.IndexFunc(line, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return ""
	}
	return strings.TrimSpace(line)
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown host"
	}
	return s
}
