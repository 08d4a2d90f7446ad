package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// The fields of a summary's lines, as summaryWriter writes them: a
// string escaped, a number in decimal, a bool 1 or empty, a time RFC
// 3339 or empty. A field that does not read keeps the first error of the
// line in r.err (fail), so that a record's fields are read in one
// expression and checked once.

// fail keeps the first error of the line read.
func (r *summaryReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// str is the string field b unescaped, held once when shared.
func (r *summaryReader) str(b []byte, shared bool) (string, error) {
	if bytes.IndexByte(b, '\\') < 0 {
		if shared {
			return r.strs.bytes(b), nil
		}
		return string(b), nil
	}
	s, err := unescape(b)
	if err != nil {
		return "", err
	}
	if shared {
		return r.strs.of(s), nil
	}
	return s, nil
}

// plain is the string field b, its own copy.
func (r *summaryReader) plain(b []byte) string {
	s, err := r.str(b, false)
	r.fail(err)
	return s
}

// shared is the string field b, held once.
func (r *summaryReader) shared(b []byte) string {
	s, err := r.str(b, true)
	r.fail(err)
	return s
}

// def is the field b of a string whose default is def (sumwrite.go).
func (r *summaryReader) def(b []byte, def string) string {
	switch {
	case len(b) == 0:
		return def
	case string(b) == noDefault:
		return ""
	}
	return r.shared(b)
}

// unescape is b with \\, \t and \n undone.
func unescape(b []byte) (string, error) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			out = append(out, b[i])
			continue
		}
		if i++; i == len(b) {
			return "", errors.New("a field ends in a backslash")
		}
		switch b[i] {
		case '\\':
			out = append(out, '\\')
		case 't':
			out = append(out, '\t')
		case 'n':
			out = append(out, '\n')
		default:
			return "", fmt.Errorf("an escape \\%c", b[i])
		}
	}
	return string(out), nil
}

// int is the decimal field b, 0 when empty.
func (r *summaryReader) int(b []byte) int64 {
	if len(b) == 0 {
		return 0
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	r.fail(err)
	return n
}

// count is the field b of a count of records.
func (r *summaryReader) count(b []byte) int {
	n := r.int(b)
	if n < 0 {
		r.fail(fmt.Errorf("a count of %d", n))
		return 0
	}
	return int(min(n, 1<<40))
}

// bool is the field b of a bool: 1, or empty for false.
func (r *summaryReader) bool(b []byte) bool {
	if len(b) > 0 && string(b) != "1" {
		r.fail(fmt.Errorf("a bool %.20q", b))
	}
	return len(b) > 0
}

// time is the field b of a time, RFC 3339; empty, the zero time.
func (r *summaryReader) time(b []byte) time.Time {
	var t time.Time
	if len(b) > 0 {
		r.fail(t.UnmarshalText(b))
	}
	return t
}
