package fetch

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Kind names what went wrong with a fetch, so that callers can branch on it:
// a rate limit is not a failure of the peer, a Gone peer is muted, a Blocked
// file is not retried.
type Kind string

// The kinds of fetch error. Their values are stable: they are the labels of
// the requests_failed counter in Stats.
const (
	KindBadURL      Kind = "bad_url"         // not an absolute http(s) URL, or outside the peer's base URL
	KindPrivate     Kind = "private_address" // resolved to a private, loopback or link-local address
	KindRedirect    Kind = "redirect"        // too many redirects, or one leaving the host or http(s)
	KindBlocked     Kind = "robots_blocked"  // robots.txt disallows the URL for meshnode
	KindRateLimited Kind = "rate_limited"    // the host asked us to wait (429, 503 with Retry-After, X-RateLimit-Remaining: 0)
	KindNotFound    Kind = "not_found"       // 404
	KindGone        Kind = "gone"            // 410: the peer is gone for good
	KindClient      Kind = "client_error"    // any other 4xx; never retried
	KindServer      Kind = "server_error"    // 5xx after the retries
	KindTooLarge    Kind = "too_large"       // the decoded body exceeded Request.MaxBytes
	KindTimeout     Kind = "timeout"         // Options.Timeout or the caller's deadline ran out
	KindNetwork     Kind = "network"         // connection refused, reset, DNS failure, TLS failure
	KindCanceled    Kind = "canceled"        // the caller's context was canceled
	KindHeld        Kind = "held"            // Request.Hold refused the body's bytes: the caller's memory budget is spent
)

// String returns the kind's stable name.
func (k Kind) String() string { return string(k) }

// Error is the error every Client.Get failure returns.
type Error struct {
	Kind       Kind
	URL        string
	Status     int       // HTTP status when the server answered, else 0
	RetryAfter time.Time // for KindRateLimited: when the host may be asked again
	Err        error     // the underlying cause, if any
}

// Error formats the failure as "fetch URL: kind: detail".
func (e *Error) Error() string {
	msg := fmt.Sprintf("fetch %s: %s", e.URL, e.Kind)
	if e.Status != 0 {
		msg += fmt.Sprintf(" (http %d %s)", e.Status, http.StatusText(e.Status))
	}
	if !e.RetryAfter.IsZero() {
		msg += " until " + e.RetryAfter.UTC().Format(time.RFC3339)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying cause, so errors.Is(err, context.Canceled)
// works through an *Error.
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the Kind of err when it is or wraps an *Error, else "".
func KindOf(err error) Kind {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Kind
	}
	return ""
}

// IsKind reports whether err is or wraps an *Error of kind k.
func IsKind(err error, k Kind) bool { return err != nil && KindOf(err) == k }
