package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// hugeHeaders answers with n bytes of headers, in 4 KiB values, then "ok",
// recording the protocol of the request in proto.
func hugeHeaders(n int, proto *int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		*proto = r.ProtoMajor
		v := strings.Repeat("x", 4<<10)
		for i := 0; i*len(v) < n; i++ {
			w.Header().Add("X-Pad", v)
		}
		w.Write([]byte("ok"))
	}
}

// headerPeer serves h over HTTP/1.1, or over HTTP/2 with TLS, and returns a
// client that trusts it.
func headerPeer(t *testing.T, h http.Handler, h2 bool) (*httptest.Server, *Client) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	// The server's own cap on what it reads is not what is under test.
	srv.Config.MaxHeaderBytes = 32 << 20
	if !h2 {
		srv.Start()
		t.Cleanup(srv.Close)
		return srv, newTestClient(newFakeClock(), func(o *Options) {
			o.IgnoreRobots = true
			o.MaxRetries = -1
		})
	}
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	return srv, newTestClient(newFakeClock(), func(o *Options) {
		o.IgnoreRobots = true
		o.MaxRetries = -1
		o.rootCAs = pool
	})
}

func TestResponseHeadersAreCappedOverHTTP1AndHTTP2(t *testing.T) {
	for _, tc := range []struct {
		name  string
		h2    bool
		bytes int
		ok    bool
	}{
		{"http1 headers under the cap", false, MaxHeaderBytes / 2, true},
		{"http1 headers of 1 MiB", false, 1 << 20, false},
		{"http2 headers under the cap", true, MaxHeaderBytes / 2, true},
		{"http2 headers of 1 MiB", true, 1 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var proto int
			srv, c := headerPeer(t, hugeHeaders(tc.bytes, &proto), tc.h2)
			resp, err := c.Get(context.Background(), Request{URL: srv.URL + "/a/MANIFEST.md"})
			if want := map[bool]int{false: 1, true: 2}[tc.h2]; proto != want {
				t.Fatalf("request went over HTTP/%d, want HTTP/%d", proto, want)
			}
			if tc.ok {
				if err != nil || string(resp.Body) != "ok" {
					t.Fatalf("Get = %v, %v; want the body", resp, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Get of %d bytes of headers succeeded; want it refused over %d", tc.bytes, MaxHeaderBytes)
			}
		})
	}
}
