package statefile

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/atomicfile"
)

// A split state's files are read and written by key: a peer's key is
// PeerFileName of its URL, "<slug>-<8 hex>.json". On disk, a peer's file
// in a split directory is named "<slug>_<8 hex>.json", its key's 8 hex
// digits XORed with the first four bytes of the sha256 of the directory's
// name ("ledger", "queue", "polling-cursors"...), so that a peer's files
// in the several directories differ in their last characters. Git's
// pack-objects finds the previous version of a file to delta it against
// once per hash of a path's last 16 characters: under the shared name
// only one of a peer's files found it, and the others were pushed whole
// (docs/decisions.md, "What the node commits"). Names that are not peer
// keys are their own file names. Older nodes named a peer's file by its
// key: such a file is read as its key's, a file of the new name winning
// over it, and Migrate renames it.

// PeerFileName returns the key of the peer at url in a split state, a
// readable slug of the URL and 8 hex digits of its sha256: the name Read
// returns a peer's file under and the writes take it by. PeerPath is where
// it is on disk. Two URLs of one slug share the 8 hex digits for about
// 2^16 hashes of search, so the heartbeat keeps no two URLs of one key
// (heartbeat.holdStateKey; docs/decisions.md, "One URL to a state file").
func PeerFileName(url string) string {
	sum := sha256.Sum256([]byte(url))
	return slug(url) + "-" + hex.EncodeToString(sum[:4]) + ".json"
}

// slug returns the readable part of a peer's file name: the URL without
// its scheme, lowercased, runs of other characters than [a-z0-9.] as one
// dash, at most 60 characters; "peer" when nothing is left.
func slug(url string) string {
	s := strings.TrimPrefix(strings.TrimPrefix(url, "https://"), "http://")
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '.'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	name := strings.Trim(b.String(), "-.")
	if name == "" {
		name = "peer"
	}
	return name
}

// FlatPeerPath returns the file of the peer at url in the flat split
// state named by path (copies/), or where a node not migrated to shards
// yet kept it.
func FlatPeerPath(path, url string) string {
	dir := Dir(path)
	return filepath.Join(dir, fileName(dir, PeerFileName(url)))
}

// fileName returns the name on disk of the file key of the split
// directory dir.
func fileName(dir, key string) string {
	stem, x, ok := splitName(key, '-')
	if !ok {
		return key
	}
	return stem + "_" + hexOf(x^dirMask(dir)) + ".json"
}

// keyOf returns the key of the file name of the split directory dir, and
// whether name is an older node's name of it (the key itself).
func keyOf(dir, name string) (key string, old bool) {
	if stem, x, ok := splitName(name, '_'); ok {
		return stem + "-" + hexOf(x^dirMask(dir)) + ".json", false
	}
	_, _, old = splitName(name, '-')
	return name, old
}

// splitName splits "<stem><sep><8 lowercase hex>.json" into its stem and
// number; a stem never holds '_' (slug).
func splitName(name string, sep byte) (stem string, x uint32, ok bool) {
	base, found := strings.CutSuffix(name, ".json")
	if !found || len(base) < 10 || base[len(base)-9] != sep {
		return "", 0, false
	}
	stem, digits := base[:len(base)-9], base[len(base)-8:]
	b, err := hex.DecodeString(digits)
	if err != nil || hexOf(binary.BigEndian.Uint32(b)) != digits || strings.ContainsRune(stem, '_') {
		return "", 0, false
	}
	return stem, binary.BigEndian.Uint32(b), true
}

func hexOf(x uint32) string { return fmt.Sprintf("%08x", x) }

// dirMask is what a split directory's files XOR their key's number with:
// the first four bytes of the sha256 of the directory's name.
func dirMask(dir string) uint32 {
	sum := sha256.Sum256([]byte(filepath.Base(dir)))
	return binary.BigEndian.Uint32(sum[:4])
}

// MigrateFlat moves each file of the flat split state named by path that an
// older node named by its key to its name (fileName), or removes it when
// a file of that name is there already (written by this code since, so
// newer). Each move is a hard link then a removal, so a crash at any
// point leaves each peer's file under one name or both (read under the
// new one), and a rerun finishes the move. It reports whether it changed
// anything.
func MigrateFlat(path string) (bool, error) {
	dir := Dir(path)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("migrate %s: %w", dir, err)
	}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	changed := false
	for _, e := range entries {
		if !isStateFile(e) {
			continue
		}
		key, old := keyOf(dir, e.Name())
		if !old {
			continue
		}
		if err := moveOld(dir, e.Name(), fileName(dir, key), names); err != nil {
			return changed, err
		}
		changed = true
	}
	if changed {
		return true, atomicfile.SyncDir(dir)
	}
	return false, nil
}

// moveOld moves the older node's file name of dir to to, or removes it
// when names, dir's files, holds to. It never replaces a file named to:
// one written since dir was listed (an inbox command beside the
// heartbeat writes the new name under its own lock) is newer, and wins,
// as it does on read. So the move is a hard link, which fails when to
// exists, then the removal of name; another process that moved name
// first leaves nothing to do.
func moveOld(dir, name, to string, names map[string]bool) error {
	from := filepath.Join(dir, name)
	if !names[to] {
		err := os.Link(from, filepath.Join(dir, to))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // moved or removed by another process since the listing
		case err != nil && !errors.Is(err, fs.ErrExist):
			return fmt.Errorf("move %s to %s: %w", name, to, err)
		}
		names[to] = true
	}
	if err := os.Remove(from); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s, moved to %s: %w", name, to, err)
	}
	return nil
}

// isStateFile reports whether the directory entry e is a file of a split
// directory: a regular *.json file, not hidden.
func isStateFile(e fs.DirEntry) bool {
	return e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".")
}

// FlatFilePath returns the file on disk that holds the records of key in
// the flat split state named by path, for a message that names it: the
// key's file (fileName), or an older node's name of it where only that
// is there.
func FlatFilePath(path, key string) string {
	dir := Dir(path)
	p := filepath.Join(dir, fileName(dir, key))
	if _, err := os.Lstat(p); err != nil {
		if _, err := os.Lstat(filepath.Join(dir, key)); err == nil {
			return filepath.Join(dir, key)
		}
	}
	return p
}
