package fetch

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkGetSmallFiles measures many small fetches over loopback through
// the whole politeness path (robots cache, cooldown check, host slot).
func BenchmarkGetSmallFiles(b *testing.B) {
	body := strings.Repeat("a trace line\n", 80) // about 1 KiB, a typical trace
	p := newPeer(b, mux(map[string]http.Handler{"/": serve(200, body)}))
	for _, bc := range []struct {
		name     string
		parallel bool
	}{{"serial", false}, {"parallel", true}} {
		b.Run(bc.name, func(b *testing.B) {
			c := New(Options{AllowPrivate: true, MaxConnsPerHost: 8})
			ctx := context.Background()
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			get := func() {
				if _, err := c.Get(ctx, Request{URL: p.URL + "/traces/a.md"}); err != nil {
					b.Fatal(err)
				}
			}
			if !bc.parallel {
				for b.Loop() {
					get()
				}
				return
			}
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					get()
				}
			})
		})
	}
}
