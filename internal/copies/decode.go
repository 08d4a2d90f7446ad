package copies

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/meshnode/meshnode/internal/manifest"
)

// decodeSaved decodes a file of copies in the shape Files writes (an
// object whose one field, "copies", maps hashes to objects of
// "agent_url", "text" and "cut"), as json.Unmarshal would, in one pass
// and without reflection: a site build loads every copy at every build,
// and encoding/json took half the time of loading them. It reports
// false for anything else (another field, a null, a number, an escape
// it does not read, bytes that are not UTF-8, a syntax error), which the
// caller hands to json.Unmarshal; FuzzDecodeSavedMatchesJSON holds it to
// json.Unmarshal's result.
func decodeSaved(data []byte) (map[manifest.Hash]*Copy, bool) {
	d := &decoder{b: data}
	var byHash map[manifest.Hash]*Copy
	ok := d.object(func(key string) bool {
		if key != "copies" {
			return false
		}
		if byHash == nil { // a second "copies" adds to the first, as in json.Unmarshal
			byHash = map[manifest.Hash]*Copy{}
		}
		return d.object(func(h string) bool {
			c, ok := d.copy()
			byHash[manifest.Hash(h)] = c
			return ok
		})
	})
	d.space()
	return byHash, ok && d.i == len(d.b)
}

// decoder reads JSON from b at i.
type decoder struct {
	b []byte
	i int
}

// copy reads one copy's object.
func (d *decoder) copy() (*Copy, bool) {
	c := &Copy{}
	return c, d.object(func(key string) bool {
		var ok bool
		switch key {
		case "agent_url":
			c.AgentURL, ok = d.str()
		case "text":
			c.Text, ok = d.str()
		case "cut":
			c.Cut, ok = d.boolean()
		}
		return ok
	})
}

// object reads an object, calling field for each key with d past its
// colon; field reads the value.
func (d *decoder) object(field func(key string) bool) bool {
	if !d.next('{') {
		return false
	}
	if d.next('}') {
		return true
	}
	for {
		key, ok := d.str()
		if !ok || !d.next(':') || !field(key) {
			return false
		}
		if d.next('}') {
			return true
		}
		if !d.next(',') {
			return false
		}
	}
}

// next skips white space and consumes c if it comes next.
func (d *decoder) next(c byte) bool {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) boolean() (bool, bool) {
	d.space()
	for _, lit := range []string{"true", "false"} {
		if len(d.b)-d.i >= len(lit) && string(d.b[d.i:d.i+len(lit)]) == lit {
			d.i += len(lit)
			return lit == "true", true
		}
	}
	return false, false
}

// str reads a string of UTF-8, unescaping what Files's encoder escapes.
func (d *decoder) str() (string, bool) {
	if !d.next('"') {
		return "", false
	}
	start := d.i
	for d.i < len(d.b) {
		switch c := d.b[d.i]; {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return string(s), utf8.Valid(s)
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return "", false
		}
		d.i++
	}
	return "", false
}

// escaped reads the rest of a string from its first backslash, with
// start where the string's bytes begin.
func (d *decoder) escaped(start int) (string, bool) {
	out := append(make([]byte, 0, 2*(d.i-start)+64), d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), utf8.Valid(out)
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return "", false
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok || utf16.IsSurrogate(r) {
				return "", false // a pair, or a lone half: json.Unmarshal's
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return "", false
}

// hex4 reads the four hex digits of a \u escape.
func (d *decoder) hex4() (rune, bool) {
	if len(d.b)-d.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}
