package fetch

import (
	"math"
	"time"
)

// The backoff of docs/protocol.md §11.4: base 1s, doubled per error, jitter
// 0.8–1.2, capped at five minutes.
const (
	backoffBase   = time.Second
	backoffFactor = 2.0
	backoffMaxExp = 8 // docs/protocol.md §11.4 caps the exponent: 2^8 s already exceeds the cap
	backoffCap    = 5 * time.Minute
	jitterMin     = 0.8
	jitterMax     = 1.2
)

// backoff is the wait before retry number retry (0 for the first retry),
// with jitter in [jitterMin, jitterMax) so that peers on one host that
// failed together do not retry together.
func backoff(retry int, jitter float64) time.Duration {
	exp := float64(min(max(retry, 0), backoffMaxExp))
	d := time.Duration(float64(backoffBase) * math.Pow(backoffFactor, exp) * jitter)
	return min(d, backoffCap)
}
