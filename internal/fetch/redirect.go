package fetch

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// redirectError is what checkRedirect returns; Get maps it to KindRedirect.
type redirectError struct{ reason string }

func (e *redirectError) Error() string { return e.reason }

// withinKey carries Request.Within to checkRedirect through the request's
// context, the one thing http.Client hands it.
type withinKey struct{}

// checkRedirect follows at most max redirects, and only to the same host
// over http or https: a peer must not send the node to another host (its
// politeness, robots and cooldown are per host) and a downgrade from https
// to http would let the path be tampered with. When the request names the
// peer's base URL (Request.Within), the redirect must also stay under it:
// another path of a shared host is another agent's (docs/security.md).
func checkRedirect(max int) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		first := via[0].URL
		switch {
		case len(via) > max:
			return &redirectError{fmt.Sprintf("more than %d redirects", max)}
		case req.URL.Scheme != "http" && req.URL.Scheme != "https":
			return &redirectError{fmt.Sprintf("redirect to non-http scheme %q", req.URL.Scheme)}
		case !strings.EqualFold(req.URL.Host, first.Host):
			return &redirectError{fmt.Sprintf("redirect leaves host %s for %s", first.Host, req.URL.Host)}
		case first.Scheme == "https" && req.URL.Scheme == "http":
			return &redirectError{"redirect downgrades https to http"}
		}
		if base, ok := req.Context().Value(withinKey{}).(string); ok {
			if err := within(base, req.URL); err != nil {
				return &redirectError{fmt.Sprintf("redirect leaves the peer's base URL: %v", err)}
			}
		}
		return nil
	}
}

// within reports why u is not under the base URL by ResolveWithin's rule,
// or nil. An upgrade from http to https on the same host is allowed, as
// GitHub Pages sends one.
func within(base string, u *url.URL) error {
	b, err := parseBase(base)
	if err != nil {
		return fmt.Errorf("base URL: %w", err)
	}
	if b.Scheme == "http" && u.Scheme == "https" {
		b.Scheme = "https"
	}
	if _, err := filePath(b, u.String()); err != nil {
		return fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	return nil
}

func isRedirectError(err error) bool {
	var re *redirectError
	return errors.As(err, &re)
}
