package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// scanKeys returns the keys of the shard file at p, shard pre of its
// directory, reading its entry lines only: it jumps over each content by
// its length, so a state whose contents are large (the seen hashes) is
// listed without being read. It checks what decodeShard checks of the
// entry lines (order, shard, lengths within the file); the contents are
// checked when read.
func scanKeys(p string, pre prefix) ([]string, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > maxShardBytes {
		return nil, fmt.Errorf("shard of %d bytes, more than the %d accepted", info.Size(), maxShardBytes)
	}
	head := make([]byte, len(shardHeader))
	if _, err := f.ReadAt(head, 0); err != nil || string(head) != shardHeader {
		return nil, fmt.Errorf("line 1: not a shard file (want %q)", shardHeader[:len(shardHeader)-1])
	}
	var keys []string
	// A peer's entry line is under 100 bytes: reading more for each would
	// read a quiet heartbeat's listings several times over.
	buf := make([]byte, 128)
	for off := int64(len(shardHeader)); off < info.Size(); {
		key, next, err := scanEntry(f, buf, off, info.Size())
		if err != nil {
			return nil, fmt.Errorf("byte %d: %w", off, err)
		}
		if n := len(keys); n > 0 && string(key) <= keys[n-1] {
			return nil, fmt.Errorf("byte %d: key %s after %s: keys must be sorted, each once", off, key, keys[n-1])
		}
		if !pre.has(keyBits(key)) {
			return nil, fmt.Errorf("byte %d: key %s is not of shard %s", off, key, pre)
		}
		keys = append(keys, string(key))
		off = next
	}
	return keys, nil
}

// scanEntry reads the entry line at off of the shard f of size bytes,
// with the content's last byte before it, and returns its key and the
// offset of the next entry.
func scanEntry(f *os.File, buf []byte, off, size int64) ([]byte, int64, error) {
	n, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, err
	}
	nl := bytes.IndexByte(buf[:n], '\n')
	if nl < 0 && n == len(buf) {
		long := make([]byte, maxKeyLen+32)
		if n, err = f.ReadAt(long, off); err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		buf, nl = long, bytes.IndexByte(long[:n], '\n')
	}
	if nl < 0 {
		return nil, 0, fmt.Errorf("entry line without its newline, or too long")
	}
	key, length, err := entryLine(buf[:nl])
	if err != nil {
		return nil, 0, err
	}
	end := off + int64(nl) + 1 + length
	if end > size {
		return nil, 0, fmt.Errorf("key %s: bad length %d (%d bytes left)", key, length, size-off-int64(nl)-1)
	}
	last := []byte{0}
	if length > 0 {
		if _, err := f.ReadAt(last, end-1); err != nil {
			return nil, 0, err
		}
	}
	if last[0] != '\n' {
		if _, err := f.ReadAt(last, end); err != nil || last[0] != '\n' {
			return nil, 0, fmt.Errorf("key %s: content not followed by a newline", key)
		}
		end++
	}
	return key, end, nil
}
