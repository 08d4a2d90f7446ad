package ledger

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

// A heartbeat with news decodes every record of the ledger's window, the
// peers' files: 216,000 records after three years of 10,000 agents, whose
// decoding through encoding/json's reflection was an eighth of that
// heartbeat's CPU. readPart reads a file laid out as encodePart writes
// it, without reflection, and declines anything else, which the general
// decode then reads, or words the error for, as it always did. For every
// input it accepts, the records are the ones the general decode gives,
// and the general decode gives no error
// (FuzzReadPartMatchesGeneral). What it accepts (docs/decisions.md,
// "The ledger's window"):
//
//   - one JSON object of the keys of a part (form, traces, validations,
//     rejected, disputes, copies), each record an object of its type's
//     keys: each key spelled exactly, without escapes, at most once and
//     in the order of the type's fields (the encoder's order), any of
//     them left out; JSON whitespace anywhere between tokens;
//   - strings of any content, those with escapes or bytes that are not
//     UTF-8 unquoted by encoding/json itself;
//   - integers without a fraction, an exponent or a leading zero, of at
//     most 18 digits;
//     true and false; times as time.Time reads them from JSON;
//   - scores as the object of the six dimensions, in their order,
//     lowercase, each once.
//
// It declines null, a number in any other spelling, scores as an array
// and any key it does not know, however the general decode takes them.

// maxDigits is the most digits an integer readPart accepts has: it
// cannot overflow an int64, and no record's number has more.
const maxDigits = 18

// readPart reads data into p, a part of a fresh ledger, when it is laid
// out as the node's encoder lays out a peer's file or a segment's
// records; false, p untouched, when it is not. The strings that many
// records repeat (an agent's name and URL, a type, a result) are taken
// from strs when it is not nil, and a record's hash that its key ends in
// is that end of its key: a heartbeat's load would otherwise allocate
// each, then let the interner drop it (intern.go).
func readPart(data []byte, p *part, strs interner) bool {
	r := partReader{data: data, strs: strs}
	var in part
	in.Ledger = &Ledger{}
	object(&r, &in, jsonPart)
	r.space()
	if r.bad || r.pos != len(data) {
		return false
	}
	p.Form = in.Form
	p.Traces, p.Validations, p.Rejected = in.Traces, in.Validations, in.Rejected
	p.Disputes, p.Copies = in.Disputes, in.Copies
	return true
}

// partReader consumes a ledger file from the front; bad is set at the
// first thing it declines, after which what it reads is thrown away.
type partReader struct {
	data  []byte
	pos   int
	bad   bool
	strs  interner // nil: each string its own
	under string   // the key the record being read is filed under
}

// field is one key of a JSON object readPart reads into a T, and how
// its value is read.
type field[T any] struct {
	name string
	read func(r *partReader, v *T)
}

// object reads an object of fields into v: each key one of fields, after
// the one before it.
func object[T any](r *partReader, v *T, fields []field[T]) {
	if !r.open('{', '}') {
		return
	}
	next := 0
	for !r.bad {
		k := r.key()
		i := next
		for i < len(fields) && fields[i].name != string(k) {
			i++
		}
		if i == len(fields) {
			r.bad = true
			return
		}
		fields[i].read(r, v)
		next = i + 1
		if !r.more('}') {
			return
		}
	}
}

// records reads an object of records, each an object of fields, by key.
func records[K ~string, V any](r *partReader, fields []field[V]) map[K]*V {
	m := map[K]*V{}
	if !r.open('{', '}') {
		return m
	}
	for !r.bad {
		r.under = r.string()
		r.expect(':')
		k, v := K(r.under), new(V)
		object(r, v, fields)
		m[k] = v
		if !r.more('}') {
			break
		}
	}
	return m
}

// list reads an array, each element with elem, into a slice that is
// empty, not nil, for "[]", as encoding/json gives.
func list[E any](r *partReader, elem func(r *partReader) E) []E {
	out := []E{}
	if !r.open('[', ']') {
		return out
	}
	for !r.bad {
		out = append(out, elem(r))
		if !r.more(']') {
			break
		}
	}
	return out
}

// space skips JSON whitespace.
func (r *partReader) space() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\n', '\t', '\r':
			r.pos++
		default:
			return
		}
	}
}

// expect consumes c after whitespace, or declines.
func (r *partReader) expect(c byte) {
	r.space()
	if r.bad || r.pos >= len(r.data) || r.data[r.pos] != c {
		r.bad = true
		return
	}
	r.pos++
}

// open consumes the opening c of an object or array and reports whether
// it holds anything: false when its closing end follows at once.
func (r *partReader) open(c, end byte) bool {
	r.expect(c)
	r.space()
	if r.bad || r.pos >= len(r.data) || r.data[r.pos] != end {
		return !r.bad
	}
	r.pos++
	return false
}

// more consumes the comma before a next element (true) or the closing
// end (false).
func (r *partReader) more(end byte) bool {
	r.space()
	if r.bad || r.pos >= len(r.data) {
		r.bad = true
		return false
	}
	switch r.data[r.pos] {
	case ',':
		r.pos++
		return true
	case end:
		r.pos++
	default:
		r.bad = true
	}
	return false
}

// key consumes an object's key and its colon: the bytes of the key,
// declined when it has an escape.
func (r *partReader) key() []byte {
	tok, plain := r.token()
	if !plain {
		r.bad = true
	}
	r.expect(':')
	if r.bad {
		return nil
	}
	return tok[1 : len(tok)-1]
}

// token consumes a string, quotes included; plain when its bytes are its
// value: no escape and valid UTF-8.
func (r *partReader) token() (tok []byte, plain bool) {
	r.expect('"')
	if r.bad {
		return nil, false
	}
	start, plain, ascii := r.pos-1, true, true
	for r.pos < len(r.data) {
		r.pos += ordinaryRun(r.data[r.pos:])
		if r.pos == len(r.data) {
			break
		}
		switch c := r.data[r.pos]; {
		case c == '"':
			r.pos++
			tok = r.data[start:r.pos]
			return tok, plain && (ascii || utf8.Valid(tok))
		case c < ' ':
			r.bad = true
			return nil, false
		case c == '\\':
			plain = false
			r.pos++ // the escaped byte, which unquoting checks
		default:
			ascii = false
		}
		r.pos++
	}
	r.bad = true
	return nil, false
}

// ordinaryRun is how many bytes at the start of b are ordinary, eight at
// a time while none of the eight is a quote, a backslash, a control byte
// or not ASCII: a string's bytes are most of a file's, and most of its
// strings are hashes and URLs.
func ordinaryRun(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n := 0
	for ; n+8 <= len(b); n += 8 {
		x := binary.LittleEndian.Uint64(b[n:])
		quote, backslash := x^('"'*ones), x^('\\'*ones)
		special := (quote-ones)&^quote | (backslash-ones)&^backslash | (x-' '*ones)&^x | x
		if special&highs != 0 {
			break
		}
	}
	for n < len(b) && ordinary[b[n]] {
		n++
	}
	return n
}

// ordinary are the bytes that stand for themselves in a JSON string and
// are ASCII: all but control bytes, the quote and the backslash.
var ordinary = func() (o [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		o[c] = c != '"' && c != '\\'
	}
	return o
}()

// text is the value of a string: its bytes when plain, else as
// encoding/json unquotes it.
func (r *partReader) text() []byte {
	tok, plain := r.token()
	if r.bad {
		return nil
	}
	if plain {
		return tok[1 : len(tok)-1]
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		r.bad = true
		return nil
	}
	return []byte(s)
}

// string is the value of a string.
func (r *partReader) string() string { return string(r.text()) }

// shared is the value of a string many records repeat, the interner's
// copy when there is one.
func (r *partReader) shared() string {
	b := r.text()
	if r.strs == nil {
		return string(b)
	}
	return r.strs.bytes(b)
}

// hash is the value of a string that the record's key may end in, as a
// trace's hash is its key and a validation's file hash ends it: then
// that end of the key.
func (r *partReader) hash() manifest.Hash {
	b := r.text()
	if len(b) > 0 && strings.HasSuffix(r.under, string(b)) {
		return manifest.Hash(r.under[len(r.under)-len(b):])
	}
	return manifest.Hash(b)
}

// int consumes an integer of at most maxDigits digits.
func (r *partReader) int() int {
	r.space()
	neg := r.pos < len(r.data) && r.data[r.pos] == '-'
	if neg {
		r.pos++
	}
	start, n := r.pos, 0
	for r.pos < len(r.data) && r.data[r.pos] >= '0' && r.data[r.pos] <= '9' {
		n = n*10 + int(r.data[r.pos]-'0')
		r.pos++
	}
	digits := r.pos - start
	if digits == 0 || digits > maxDigits || (digits > 1 && r.data[start] == '0') {
		r.bad = true
		return 0
	}
	if neg {
		return -n
	}
	return n
}

// bool consumes true or false.
func (r *partReader) bool() bool {
	r.space()
	for _, lit := range []string{"true", "false"} {
		if len(r.data)-r.pos >= len(lit) && string(r.data[r.pos:r.pos+len(lit)]) == lit {
			r.pos += len(lit)
			return lit == "true"
		}
	}
	r.bad = true
	return false
}

// time consumes a time as time.Time reads it from JSON.
func (r *partReader) time() time.Time {
	var t time.Time
	tok, _ := r.token()
	if !r.bad && t.UnmarshalJSON(tok) != nil {
		r.bad = true
	}
	return t
}

// fingerprint consumes a fingerprint as trace.Fingerprint reads its text.
func (r *partReader) fingerprint() trace.Fingerprint {
	var f trace.Fingerprint
	b := r.text()
	if !r.bad && f.UnmarshalText(b) != nil {
		r.bad = true
	}
	return f
}

// scores consumes the object of the six dimensions, in their order.
func (r *partReader) scores() validation.Scores {
	var s validation.Scores
	r.expect('{')
	for i, d := range validation.Dimensions {
		if i > 0 {
			r.expect(',')
		}
		if string(r.key()) != d {
			r.bad = true
			return s
		}
		s[i] = r.int()
	}
	r.expect('}')
	return s
}
