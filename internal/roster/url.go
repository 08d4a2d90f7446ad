package roster

import (
	"errors"
	"fmt"
	"net/url"
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
// https, a host, no user info, query or fragment, a lowercase scheme and
// host, and a path ending in "/" (files are addressed as base URL + path).
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
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u.String(), nil
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
