package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// CorruptError reports a state file that could not be read or decoded. The
// file is left as it was: fix it by hand or move it away to start afresh.
type CorruptError struct {
	Path   string
	Line   int // 1-based; 0 when the position is unknown
	Column int // 1-based byte column
	Err    error
}

func (e *CorruptError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", e.Path, e.Line, e.Column)
	}
	return fmt.Sprintf("%s: unreadable state, left untouched (fix it or move it away): %v", where, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Corrupt wraps a JSON decoding error of the file at path, whose bytes are
// data, with the line and column it points at. The ledger and the queue use
// it too, so callers branch on one error type for every state file.
func Corrupt(path string, data []byte, err error) *CorruptError {
	ce := &CorruptError{Path: path, Err: err}
	if off, ok := offset(err); ok {
		// encoding/json reports the offset after the offending byte.
		ce.Line, ce.Column = position(data, off-1)
	}
	return ce
}

// offset returns the byte offset a JSON decoding error points at.
func offset(err error) (int64, bool) {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return se.Offset, true
	case errors.As(err, &te):
		return te.Offset, true
	}
	return 0, false
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}
