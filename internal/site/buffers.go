package site

import (
	"bytes"
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
