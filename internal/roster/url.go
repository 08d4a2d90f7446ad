package roster

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

const (
	// MaxURLBytes is the longest trace URL accepted; browsers and servers
	// commonly stop near 2 KiB.
	MaxURLBytes = 2048
	// MaxNameBytes is the longest agent name accepted.
	MaxNameBytes = 64
)

// NormalizeURL checks a trace URL and returns its canonical form: http or
// https, a host, no user info, query, fragment or dot segment, a lowercase
// scheme and host, and a path ending in "/" (files are addressed as base
// URL + path). Two spellings of one URL give one canonical form, so
// gossip cannot add a second name for a known URL: the default port
// (:443 for https, :80 for http), a port's leading zeros and a host's
// trailing dot are dropped, an empty path segment ("//", which many
// servers merge) is refused, and in the path an escaped unreserved
// character (%67 for "g", RFC 3986 §2.3) is decoded while every other
// escape is written in upper case.
func NormalizeURL(s string) (string, error) {
	v := strings.TrimSpace(s)
	if len(v) > MaxURLBytes {
		return "", fmt.Errorf("url longer than %d bytes", MaxURLBytes)
	}
	u, err := url.Parse(v)
	if err != nil {
		return "", fmt.Errorf("url %q: %w", clip(v), err)
	}
	if err := checkURL(u, v); err != nil {
		return "", fmt.Errorf("url %q: %w", clip(v), err)
	}
	scheme := strings.ToLower(u.Scheme)
	host, err := canonicalHost(scheme, u)
	if err != nil {
		return "", fmt.Errorf("url %q: %w", clip(v), err)
	}
	p := canonicalEscapes(u.EscapedPath())
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		if seg == "." || seg == ".." {
			return "", fmt.Errorf("url %q: dot segment %q not allowed", clip(v), seg)
		}
		if seg == "" && i > 0 && i < len(segs)-1 {
			// Many servers merge "//" into "/": a second spelling.
			return "", fmt.Errorf("url %q: empty path segment (//) not allowed", clip(v))
		}
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return scheme + "://" + host + p, nil
}

// canonicalHost returns u's host in lower case, without a trailing dot and
// without the scheme's default port.
func canonicalHost(scheme string, u *url.URL) (string, error) {
	name := strings.TrimRight(strings.ToLower(u.Hostname()), ".")
	if name == "" {
		return "", errors.New("no host")
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == ':') {
			return "", errors.New("host must be ASCII letters, digits, '-', '.', '_' (an IDN in its xn-- form) or an IP address")
		}
	}
	if strings.Contains(name, ":") {
		name = "[" + name + "]" // IPv6
	}
	if u.Port() == "" {
		return name, nil
	}
	// The port as a number: ":0443" dials 443, so it is one spelling of it.
	n, err := strconv.Atoi(u.Port())
	if err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("port %q is not a number from 1 to 65535", u.Port())
	}
	switch {
	case scheme == "https" && n == 443, scheme == "http" && n == 80:
		return name, nil
	default:
		return name + ":" + strconv.Itoa(n), nil
	}
}

// canonicalEscapes decodes the escapes of unreserved characters in an
// escaped path and writes the others' hex digits in upper case.
func canonicalEscapes(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '%' || i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
			b.WriteByte(p[i])
			continue
		}
		c := unhex(p[i+1])<<4 | unhex(p[i+2])
		if unreserved(c) {
			b.WriteByte(c)
		} else {
			b.WriteString(strings.ToUpper(p[i : i+3]))
		}
		i += 2
	}
	return b.String()
}

func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

func checkURL(u *url.URL, raw string) error {
	switch {
	case !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https"):
		return errors.New("scheme must be http or https")
	case u.Opaque != "" || u.Hostname() == "":
		return errors.New("no host")
	case u.User != nil:
		return errors.New("user info not allowed")
	case u.RawQuery != "" || u.ForceQuery:
		return errors.New("query not allowed")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return errors.New("fragment not allowed")
	}
	return nil
}

// ValidName reports whether name can name an agent: 1 to 64 characters
// from A–Z, a–z, 0–9, ".", "_" and "-".
func ValidName(name string) bool {
	if name == "" || len(name) > MaxNameBytes {
		return false
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			return false
		}
	}
	return true
}

// clip shortens peer text quoted in a problem so a hostile line cannot
// flood a log.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
