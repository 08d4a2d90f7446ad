package node

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"testing/iotest"
)

// TestReadSizedReadsEveryByteOnce reads readers whose length is, or is
// not, the size they were said to have, in reads of every size.
func TestReadSizedReadsEveryByteOnce(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 1000)
	for _, tt := range []struct {
		name        string
		r           io.Reader
		size, limit int64
		want        []byte
	}{
		{"the size it was said to be", bytes.NewReader(data), int64(len(data)), 1 << 20, data},
		{"a byte at a time", iotest.OneByteReader(bytes.NewReader(data)), int64(len(data)), 1 << 20, data},
		{"grown since its size was taken", bytes.NewReader(data), 10, 1 << 20, data},
		{"shrunk since", bytes.NewReader(data[:100]), int64(len(data)), 1 << 20, data[:100]},
		{"cut at the limit", bytes.NewReader(data), 10, 1001, data[:1001]},
		{"empty", bytes.NewReader(nil), 0, 1 << 20, []byte{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readSized(tt.r, tt.size, tt.limit)
			if err != nil || !bytes.Equal(got, tt.want) {
				t.Fatalf("read %d bytes (err %v), want %d", len(got), err, len(tt.want))
			}
		})
	}
	if _, err := readSized(iotest.ErrReader(io.ErrUnexpectedEOF), 10, 100); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a failing reader gave %v", err)
	}
}

// TestReadOpenedAllocatesTheFileOnce reads a 64 KiB file and wants about
// its size allocated, not the doubling io.ReadAll did from 512 bytes
// (loading 20,000 traces allocated twice what it read).
func TestReadOpenedAllocatesTheFileOnce(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("x"), 64<<10)
	if err := os.WriteFile(filepath.Join(dir, "t.md"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	const runs = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		got, err := readOpened(root, "t.md", "t.md", MaxFileBytes)
		if err != nil || len(got) != len(data) {
			t.Fatalf("read %d bytes (err %v), want %d", len(got), err, len(data))
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > uint64(len(data))*5/4 {
		t.Errorf("reading a %d-byte file allocated %d bytes", len(data), per)
	}
}
