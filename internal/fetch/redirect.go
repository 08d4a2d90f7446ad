package fetch

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// redirectError is what checkRedirect returns; Get maps it to KindRedirect.
type redirectError struct{ reason string }

func (e *redirectError) Error() string { return e.reason }

// checkRedirect follows at most max redirects, and only to the same host
// over http or https: a peer must not send the node to another host (its
// politeness, robots and cooldown are per host) and a downgrade from https
// to http would let the path be tampered with.
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
		return nil
	}
}

func isRedirectError(err error) bool {
	var re *redirectError
	return errors.As(err, &re)
}
