package site

import (
	"bufio"
	"bytes"
	"io"
	"sync"
)

// Buffers a page is rendered in are reused across pages: a cold build of
// 10,000 traces grew a fresh one per page, per body and per code block,
// a quarter of the bytes it allocated and what set its peak memory.
// Whoever takes a buffer copies out what it keeps before putting it back.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled is the largest buffer kept for reuse: a page of a long list
// may reach megabytes once, and the pool must not hold on to it.
const maxPooled = 256 << 10

func getBuffer() *bytes.Buffer {
	b := buffers.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooled {
		buffers.Put(b)
	}
}

// bufWriters are the bufio.Writers markdown is rendered through, reused
// as buffers are.
var bufWriters = sync.Pool{New: func() any { return bufio.NewWriter(nil) }}

// getBufWriter is a pooled bufio.Writer writing to w.
func getBufWriter(w io.Writer) *bufio.Writer {
	b := bufWriters.Get().(*bufio.Writer)
	b.Reset(w)
	return b
}

// putBufWriter returns b to the pool, holding no reference to its writer.
func putBufWriter(b *bufio.Writer) {
	b.Reset(nil)
	bufWriters.Put(b)
}
