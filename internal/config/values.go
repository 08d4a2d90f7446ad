package config

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"
)

func scalar(n *nodeRef, what string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("must be %s", what)
	}
	return n.Value, nil
}

func parseString(n *nodeRef) (string, error) {
	s, err := scalar(n, "a string")
	if err != nil {
		return "", err
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return "", errors.New("must not contain control characters")
		}
	}
	return strings.TrimSpace(s), nil
}

// parseAgent accepts a name that fits an AGENTS.md column and a file name.
func parseAgent(n *nodeRef) (string, error) {
	s, err := parseString(n)
	if err != nil {
		return "", err
	}
	if s == "" || len(s) > 64 || strings.ContainsAny(s, " \t|/\\#") {
		return "", errors.New("must be 1 to 64 characters with no spaces, '|', '/', '\\' or '#'")
	}
	return s, nil
}

// parseURL accepts an absolute http(s) URL and adds the final "/" a trace
// URL ends with.
func parseURL(n *nodeRef) (string, error) {
	s, err := parseString(n)
	if err != nil {
		return "", err
	}
	return normalizeURL(s)
}

func normalizeURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", errors.New("must be an http or https URL like https://you.github.io/mesh/, with no query or fragment")
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String(), nil
}

// parseContact accepts text safe to put in a User-Agent header.
func parseContact(n *nodeRef) (string, error) {
	s, err := parseString(n)
	if err != nil {
		return "", err
	}
	if len(s) > 200 || strings.ContainsAny(s, "()") {
		return "", errors.New("must be at most 200 characters with no parentheses")
	}
	return s, nil
}

func parseEnum(values ...string) func(*nodeRef) (string, error) {
	return func(n *nodeRef) (string, error) {
		s, err := scalar(n, "one of "+strings.Join(values, ", "))
		for _, v := range values {
			if err == nil && s == v {
				return s, nil
			}
		}
		return "", fmt.Errorf("must be one of %s", strings.Join(values, ", "))
	}
}

func parseBool(n *nodeRef) (bool, error) {
	s, _ := scalar(n, "")
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errors.New("must be true or false")
}

func parseInt(min, max int) func(*nodeRef) (int, error) {
	p := parseInt64(int64(min), int64(max))
	return func(n *nodeRef) (int, error) {
		v, err := p(n)
		return int(v), err
	}
}

func parseInt64(min, max int64) func(*nodeRef) (int64, error) {
	return func(n *nodeRef) (int64, error) {
		s, _ := scalar(n, "")
		v, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
		if err != nil || v < min || v > max {
			return 0, fmt.Errorf("must be a whole number between %d and %d", min, max)
		}
		return v, nil
	}
}

func parseFloat(min, max float64) func(*nodeRef) (float64, error) {
	return func(n *nodeRef) (float64, error) {
		s, _ := scalar(n, "")
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || v < min || v > max {
			return 0, fmt.Errorf("must be a number between %g and %g", min, max)
		}
		return v, nil
	}
}

func parseDuration(min, max time.Duration) func(*nodeRef) (time.Duration, error) {
	return func(n *nodeRef) (time.Duration, error) {
		s, _ := scalar(n, "")
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, errors.New("must be a duration like 90s, 2m or 1h")
		}
		if d < min || d > max {
			return 0, fmt.Errorf("must be between %s and %s", formatDuration(min), formatDuration(max))
		}
		return d, nil
	}
}

// parseOffOrDuration is parseDuration that also takes 0, meaning off.
func parseOffOrDuration(min, max time.Duration) func(*nodeRef) (time.Duration, error) {
	within := parseDuration(min, max)
	return func(n *nodeRef) (time.Duration, error) {
		if s, _ := scalar(n, ""); s == "0" {
			return 0, nil
		}
		d, err := within(n)
		if err != nil {
			return 0, fmt.Errorf("%w, or 0 for off", err)
		}
		return d, nil
	}
}

func parseStringList(n *nodeRef) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, errors.New(`must be a list, like ["python3", "score.py"]`)
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		s, err := parseString(&nodeRef{Node: item})
		if err == nil && s == "" {
			err = errors.New("must not be empty")
		}
		if err != nil {
			return nil, &lineError{line: item.Line, path: fmt.Sprintf("%s[%d]", n.path, i), msg: err.Error()}
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, nil // an empty list is the default: no command
	}
	return out, nil
}
