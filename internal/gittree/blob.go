package gittree

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
)

// WithBlob returns listing, a tree listing in Of's form, with the entry
// of path (a file at the listing's level: one of the paths it was asked
// for) naming the blob git would store for content there instead of the
// one it named: what Of or Current would answer once content is written
// at path and nothing else changes. The blob's ID is git's own (`git
// hash-object --path`, which applies the path's attributes and the
// repository's hash); nothing is written to git's object store. It fails
// when the listing has no file entry for path.
//
// It is how a heartbeat that rewrote one file of a history it found
// clean digests the history it leaves, without staging the whole work
// tree again (WorkTree): the answer is for the work tree as the
// heartbeat found it plus its own write, which is exactly what it
// computed from, whatever else a person changed meanwhile.
func WithBlob(ctx context.Context, dir string, listing []byte, path string, content []byte) ([]byte, error) {
	lines := bytes.SplitAfter(listing, []byte{'\n'})
	at := -1
	for i, l := range lines {
		meta, name, ok := bytes.Cut(bytes.TrimSuffix(l, []byte{'\n'}), []byte{'\t'})
		if ok && string(name) == path && bytes.Count(meta, []byte{' '}) == 2 && bytes.Contains(meta, []byte(" blob ")) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("git's listing has no file %s", path)
	}
	id, err := hashObject(ctx, dir, path, content)
	if err != nil {
		return nil, err
	}
	meta, rest, _ := bytes.Cut(lines[at], []byte{'\t'})
	mode, _, _ := bytes.Cut(meta, []byte{' '})
	line := fmt.Appendf(nil, "%s blob %s\t%s", mode, id, rest)
	out := make([]byte, 0, len(listing)+len(id))
	for i, l := range lines {
		if i == at {
			l = line
		}
		out = append(out, l...)
	}
	return out, nil
}

// hashObject is the ID of the blob git would store for content at path.
func hashObject(ctx context.Context, dir, path string, content []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "hash-object", "--stdin", "--path="+path)
	cmd.Env = os.Environ()
	cmd.Stdin = bytes.NewReader(content)
	var out, stderr capped
	out.max, stderr.max = 1<<10, 4<<10
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git hash-object: %w: %s", err, bytes.TrimSpace(stderr.buf.Bytes()))
	}
	id := bytes.TrimSpace(out.buf.Bytes())
	if out.over || len(id) == 0 {
		return nil, fmt.Errorf("git hash-object printed no object ID")
	}
	return id, nil
}
