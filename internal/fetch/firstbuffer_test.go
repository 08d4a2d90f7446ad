package fetch

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestABodyOfAnnouncedLengthIsReadIntoOneBuffer: a body whose server
// announced its length, within one read chunk, is read into one buffer of
// that length and a byte, not grown from 512 bytes; an unannounced or a
// longer one still starts at 512. The bytes are the same either way.
func TestABodyOfAnnouncedLengthIsReadIntoOneBuffer(t *testing.T) {
	for _, c := range []struct {
		name    string
		size    int
		length  int64
		wantCap int
	}{
		{"announced", 3000, 3000, 3001},
		{"unannounced", 3000, -1, 0},
		{"longer than a chunk", readChunk + 10, readChunk + 10, 0},
		{"announced wrong, longer", 3000, 100, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := strings.Repeat("x", c.size)
			resp := &http.Response{ContentLength: c.length, Body: io.NopCloser(strings.NewReader(body))}
			got, err := readCapped(resp, 1<<20, false, nil)
			if err != nil || !bytes.Equal(got, []byte(body)) {
				t.Fatalf("read %d bytes, %v; want the %d sent", len(got), err, c.size)
			}
			if c.wantCap != 0 && cap(got) != c.wantCap {
				t.Errorf("read into %d bytes of capacity, want %d", cap(got), c.wantCap)
			}
		})
	}
}
