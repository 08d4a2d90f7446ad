package fetch

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// A body must keep coming at a minimum rate once the request is sent: a
// peer dripping a byte every 2 s otherwise holds a host slot for the whole
// Options.Timeout (20 s) per file, and 60 such files held a heartbeat's
// polling for five minutes. After SlowGrace, a body that has not brought
// MinBytesPerSecond for each second past it is cut with KindTimeout. An
// honest host sends a whole trace (4.6 KiB on average, 1 MiB at most) in
// well under the grace; one that pauses before its body still has the
// grace to start. The grace counts from the request, headers included.
const (
	MinBytesPerSecond = 1 << 10
	SlowGrace         = 5 * time.Second
)

var errBodyTooSlow = errors.New("body arrives slower than the minimum rate")

// rateGuard is a response body that fails once it falls behind the
// minimum rate, judged at each read on the client's clock.
type rateGuard struct {
	io.ReadCloser
	now   func() time.Time
	start time.Time
	n     int64
}

// guardRate guards body, of a request sent at start.
func guardRate(body io.ReadCloser, start time.Time, now func() time.Time) *rateGuard {
	return &rateGuard{ReadCloser: body, now: now, start: start}
}

// Read reads on, and fails when the bytes so far fall short of the rate.
func (g *rateGuard) Read(p []byte) (int, error) {
	n, err := g.ReadCloser.Read(p)
	g.n += int64(n)
	if err == nil {
		if late := g.now().Sub(g.start) - SlowGrace; late > 0 && g.n < int64(late.Seconds()*MinBytesPerSecond) {
			return n, fmt.Errorf("%w: %d bytes in %s (%d B/s after %s)", errBodyTooSlow, g.n,
				g.now().Sub(g.start).Round(time.Millisecond), MinBytesPerSecond, SlowGrace)
		}
	}
	return n, err
}
