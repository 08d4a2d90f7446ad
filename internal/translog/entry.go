package translog

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/meshnode/meshnode/internal/manifest"
)

// MaxEntryBytes bounds an entry: a bundle's length prefix is a uint16
// (C2SP tlog-tiles), and a real entry is under 300 bytes.
const MaxEntryBytes = 4096

// entryKeys are an entry's lines, in their one order.
var entryKeys = []string{"seq", "hash", "file", "type", "category", "submitted"}

// Entry is one published file in the log. Statuses are not logged: they
// are computed by readers from validations.
type Entry struct {
	Seq       manifest.Seq
	Hash      manifest.Hash
	File      string
	Type      string
	Category  string
	Submitted time.Time // zero when the row has none
}

// EntryOf is the entry of a row of our MANIFEST.md, with the category
// its trace declares ("" for other files).
func EntryOf(row manifest.Entry, category string) Entry {
	return Entry{Seq: row.Seq, Hash: row.Hash, File: row.File, Type: row.Type, Category: category, Submitted: row.Submitted}
}

// Marshal returns the entry's bytes: six lines "key value\n", in the order
// seq, hash, file, type, category, submitted; an empty value leaves the
// key and its space alone.
func (e Entry) Marshal() ([]byte, error) {
	return e.appendTo(nil)
}

// appendTo appends the entry's bytes (Marshal) to dst: a caller that
// marshals many entries to compare them reuses one buffer.
func (e Entry) appendTo(dst []byte) ([]byte, error) {
	if e.Seq < 1 {
		return nil, fmt.Errorf("entry: seq %d is not positive", e.Seq)
	}
	if !e.Hash.Valid() {
		return nil, fmt.Errorf("entry %d: hash %q is not sha256:<64 hex>", e.Seq, e.Hash)
	}
	if e.File == "" {
		return nil, fmt.Errorf("entry %d: no file", e.Seq)
	}
	submitted := ""
	if !e.Submitted.IsZero() {
		submitted = manifest.FormatTime(e.Submitted)
	}
	values := [...]string{strconv.Itoa(int(e.Seq)), string(e.Hash), e.File, e.Type, e.Category, submitted}
	start := len(dst)
	for i, v := range values {
		if strings.ContainsFunc(v, unicode.IsControl) {
			return nil, fmt.Errorf("entry %d: %s holds a control character", e.Seq, entryKeys[i])
		}
		dst = append(dst, entryKeys[i]...)
		dst = append(dst, ' ')
		dst = append(dst, v...)
		dst = append(dst, '\n')
	}
	if n := len(dst) - start; n > MaxEntryBytes {
		return nil, fmt.Errorf("entry %d: %d bytes, more than %d", e.Seq, n, MaxEntryBytes)
	}
	return dst, nil
}

// categoryOf is the value of the category line of an entry's bytes, ""
// when they have no such fifth line: what ParseEntry gives as Category
// for bytes it accepts, without checking the rest.
func categoryOf(data []byte) string {
	for range 4 {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return ""
		}
		data = data[nl+1:]
	}
	line, _, ok := bytes.Cut(data, []byte{'\n'})
	rest, found := bytes.CutPrefix(line, []byte("category "))
	if !ok || !found {
		return ""
	}
	return string(rest)
}

// ParseEntry reads an entry, and refuses any bytes Marshal would not
// write for it: one entry has one spelling, so its leaf hash is one.
func ParseEntry(data []byte) (Entry, error) {
	if len(data) > MaxEntryBytes {
		return Entry{}, fmt.Errorf("entry: %d bytes, more than %d", len(data), MaxEntryBytes)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) != len(entryKeys)+1 || lines[len(entryKeys)] != "" {
		return Entry{}, errors.New("entry: not six lines each ending in a newline")
	}
	v := make([]string, len(entryKeys))
	for i, k := range entryKeys {
		rest, ok := strings.CutPrefix(lines[i], k+" ")
		if !ok {
			return Entry{}, fmt.Errorf("entry: line %d is not %q", i+1, k)
		}
		v[i] = strings.TrimSuffix(rest, "\n")
	}
	seq, err := strconv.Atoi(v[0])
	if err != nil {
		return Entry{}, fmt.Errorf("entry: seq: %w", err)
	}
	e := Entry{Seq: manifest.Seq(seq), Hash: manifest.Hash(v[1]), File: v[2], Type: v[3], Category: v[4]}
	if v[5] != "" {
		if e.Submitted, err = time.Parse(time.RFC3339, v[5]); err != nil {
			return Entry{}, fmt.Errorf("entry: submitted: %w", err)
		}
	}
	again, err := e.Marshal()
	if err != nil {
		return Entry{}, err
	}
	if !bytes.Equal(again, data) {
		return Entry{}, errors.New("entry: not in canonical form")
	}
	return e, nil
}
