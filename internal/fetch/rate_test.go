package fetch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestGetCutsOffABodyBelowTheMinimumRate: a body that drips is cut once it
// falls behind MinBytesPerSecond past SlowGrace, long before the request
// timeout, while a body that pauses within the grace or comes at the rate
// is read. The fake clock moves between the server's writes, so nothing
// waits for real.
func TestGetCutsOffABodyBelowTheMinimumRate(t *testing.T) {
	type step struct {
		advance time.Duration
		bytes   int
	}
	for _, tc := range []struct {
		name  string
		steps []step
		ok    bool
	}{
		{"a byte, then another 15 s later", []step{{0, 1}, {SlowGrace + 10*time.Second, 1}}, false},
		{"a byte every 2 s", []step{{0, 1}, {2 * time.Second, 1}, {2 * time.Second, 1}, {2 * time.Second, 1}, {2 * time.Second, 1}}, false},
		{"a pause within the grace, then the body", []step{{SlowGrace - time.Second, 3 << 10}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newFakeClock()
			p := newPeer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				for _, s := range tc.steps {
					clk.Advance(s.advance)
					w.Write([]byte(strings.Repeat("x", s.bytes)))
					w.(http.Flusher).Flush()
				}
				if !tc.ok {
					<-r.Context().Done() // a drip never ends by itself
				}
			}))
			c := newTestClient(clk, func(o *Options) {
				o.IgnoreRobots = true
				o.Timeout = 5 * time.Second // a bound if the guard fails, not a measure
			})
			resp, err := c.Get(context.Background(), Request{URL: p.URL + "/traces/x.md"})
			if tc.ok {
				if err != nil {
					t.Fatalf("Get = %v, want the body", err)
				}
				if want := tc.steps[len(tc.steps)-1].bytes; len(resp.Body) < want {
					t.Fatalf("body of %d bytes", len(resp.Body))
				}
				return
			}
			e := wantKind(t, err, KindTimeout)
			if !strings.Contains(e.Error(), "minimum rate") {
				t.Errorf("error %q does not say the body was too slow", e)
			}
		})
	}
}

// clockedReader gives chunk bytes per Read and moves the clock by every
// first, as a body arriving at a steady rate does.
type clockedReader struct {
	clk   *fakeClock
	every time.Duration
	chunk int
	left  int
}

func (r *clockedReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	r.clk.Advance(r.every)
	n := min(len(p), r.chunk, r.left)
	r.left -= n
	return n, nil
}

func (r *clockedReader) Close() error { return nil }

func TestRateGuardReadsABodyAtTheRateWhateverItsLength(t *testing.T) {
	clk := newFakeClock()
	// 1 MiB at twice the minimum rate: 8 minutes on the clock.
	body := &clockedReader{clk: clk, every: time.Second, chunk: 2 * MinBytesPerSecond, left: 1 << 20}
	got, err := io.ReadAll(guardRate(body, clk.Now(), clk.Now))
	if err != nil || len(got) != 1<<20 {
		t.Fatalf("read %d bytes, %v; want 1 MiB", len(got), err)
	}
	// Half the rate is cut once the grace is spent.
	slow := &clockedReader{clk: clk, every: time.Second, chunk: MinBytesPerSecond / 2, left: 1 << 20}
	got, err = io.ReadAll(guardRate(slow, clk.Now(), clk.Now))
	if !errors.Is(err, errBodyTooSlow) || len(got) >= 1<<20 {
		t.Fatalf("read %d bytes at half the rate, %v; want it cut", len(got), err)
	}
}
