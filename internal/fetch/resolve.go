package fetch

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// maxFileLen bounds a MANIFEST file column; real ones are under 100 bytes.
const maxFileLen = 1024

// ResolveWithin returns the absolute URL of a MANIFEST `file` under the
// peer's base URL (decisions.md: "a file that leaves the peer's base URL is
// refused before any request"). The file is a relative path of non-empty
// segments, or an absolute URL with the base's scheme and host whose path
// lies under the base path, or a path from the root that lies under it.
// Refused, with an error of kind KindBadURL: other hosts and schemes,
// scheme-relative URLs to another host, `.` and `..` segments (also
// percent-encoded), backslashes, empty segments, control characters,
// invalid UTF-8 or percent-encoding, a `%` that decodes to another escape
// (double encoding), user info, and queries and fragments: a file is a
// path, and a query would let a peer point the node at any endpoint of its
// host.
func ResolveWithin(base, file string) (string, error) {
	b, err := parseBase(base)
	if err != nil {
		return "", &Error{Kind: KindBadURL, URL: base, Err: fmt.Errorf("base URL: %w", err)}
	}
	p, err := filePath(b, file)
	if err != nil {
		return "", &Error{Kind: KindBadURL, URL: base, Err: fmt.Errorf("file %q: %w", file, err)}
	}
	out := url.URL{Scheme: b.Scheme, Host: b.Host, Path: p}
	return out.String(), nil
}

// parseBase reads a peer's base URL; its path is made to end in "/".
func parseBase(base string) (*url.URL, error) {
	b, err := parseTarget(base)
	if err != nil {
		return nil, errors.Unwrap(err)
	}
	if b.RawQuery != "" || b.ForceQuery {
		return nil, errors.New("base URL has a query")
	}
	if !strings.HasSuffix(b.Path, "/") {
		b.Path += "/"
	}
	b.RawPath = ""
	b.Host = strings.ToLower(b.Host)
	return b, nil
}

// filePath returns the decoded absolute path file names under b.
func filePath(b *url.URL, file string) (string, error) {
	if err := checkChars(file); err != nil {
		return "", err
	}
	rel := file
	if hasScheme(file) || strings.HasPrefix(file, "//") || strings.HasPrefix(file, "/") {
		var err error
		if rel, err = relativeToBase(b, file); err != nil {
			return "", err
		}
	}
	dec, err := url.PathUnescape(rel)
	if err != nil {
		return "", fmt.Errorf("bad percent-encoding: %w", err)
	}
	if err := checkSegments(dec); err != nil {
		return "", err
	}
	return b.Path + dec, nil
}

// checkChars refuses what no file path holds, before any decoding.
func checkChars(file string) error {
	switch {
	case file == "":
		return errors.New("empty path")
	case len(file) > maxFileLen:
		return fmt.Errorf("path longer than %d bytes", maxFileLen)
	case !utf8.ValidString(file):
		return errors.New("invalid UTF-8")
	case strings.ContainsAny(file, "?#"):
		return errors.New("query or fragment in a file path")
	}
	return checkDecoded(file)
}

// checkDecoded refuses control characters, backslashes and leftover
// escapes; it runs on the raw text and again after decoding.
func checkDecoded(s string) error {
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return fmt.Errorf("control character %U", r)
		case r == '\\':
			return errors.New("backslash in path")
		}
	}
	return nil
}

// relativeToBase turns an absolute URL or root path into a path relative
// to b, or refuses it when it leaves b.
func relativeToBase(b *url.URL, file string) (string, error) {
	u, err := url.Parse(file)
	if err != nil {
		return "", err
	}
	switch {
	case u.Scheme != "" && !strings.EqualFold(u.Scheme, b.Scheme):
		return "", fmt.Errorf("scheme %q differs from the base's %q", u.Scheme, b.Scheme)
	case u.User != nil:
		return "", errors.New("user info in URL")
	case u.Host != "" && !strings.EqualFold(u.Host, b.Host):
		return "", fmt.Errorf("host %q is not the peer's host %q", u.Host, b.Host)
	case u.Scheme != "" && u.Host == "":
		return "", errors.New("absolute URL without a host")
	}
	p := u.EscapedPath()
	prefix := (&url.URL{Path: b.Path}).EscapedPath()
	if !strings.HasPrefix(p, prefix) {
		return "", fmt.Errorf("path %q is outside the base path %q", p, b.Path)
	}
	return p[len(prefix):], nil
}

// checkSegments refuses ".", ".." and empty segments in the decoded path,
// and a decoded path that still holds an escape (double encoding).
func checkSegments(dec string) error {
	if err := checkDecoded(dec); err != nil {
		return err
	}
	if strings.Contains(dec, "%") {
		return errors.New("percent sign after decoding (double encoding)")
	}
	if dec == "" {
		return errors.New("empty path")
	}
	for _, seg := range strings.Split(dec, "/") {
		switch seg {
		case "":
			return errors.New("empty path segment")
		case ".", "..":
			return fmt.Errorf("%q segment", seg)
		}
	}
	return nil
}

// hasScheme reports whether s starts with a URL scheme ("http:",
// "javascript:"), which makes it an absolute URL, not a path.
func hasScheme(s string) bool {
	for i, r := range s {
		switch {
		case r == ':':
			return i > 0
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return false
}
