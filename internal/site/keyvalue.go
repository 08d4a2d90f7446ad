package site

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// appendValue appends p, for the kinds of values cache keys hold by the
// thousand (numbers, flags, tags, metadata, citation links, votes), and
// reports false for any other: fmt's %v found each by reflection, 0.2 CPU
// s of a cold build's keys. Each string is written with its length before
// it (appendKeyString), as keyOf writes a string part, so that two values
// whose strings differ never append the same bytes: %v joined a struct's
// fields and a list's items with a bare space, and gave ("a b", "c") and
// ("a", "b c") one key (docs/decisions.md, "Free text in a cache key").
// TestAppendValueTellsEveryFieldApart checks every field of each struct.
func appendValue(b []byte, p any) ([]byte, bool) {
	switch v := p.(type) {
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case manifest.Seq:
		return strconv.AppendInt(b, int64(v), 10), true
	case bool:
		return strconv.AppendBool(b, v), true
	case []string:
		return appendList(b, v, appendKeyString), true
	case []Field:
		return appendList(b, v, appendField), true
	case refLink:
		return appendRefLink(b, v), true
	case []refLink:
		return appendList(b, v, appendRefLink), true
	case agentRef:
		return appendStruct(b, v.Name, v.Href), true
	case Vote:
		return appendVote(b, &v), true
	}
	return b, false
}

// appendList is a slice, its items between brackets: "[a b c]", each item
// ending where its own encoding says.
func appendList[T any](b []byte, items []T, each func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ' ')
		}
		b = each(b, it)
	}
	return append(b, ']')
}

// appendStruct is a struct of strings, each with its length before it,
// between braces.
func appendStruct(b []byte, fields ...string) []byte {
	b = append(b, '{')
	for _, f := range fields {
		b = appendKeyString(b, f)
	}
	return append(b, '}')
}

func appendField(b []byte, f Field) []byte {
	return appendStruct(b, f.Name, f.Value, strconv.FormatBool(f.Unfilled))
}

func appendRefLink(b []byte, l refLink) []byte {
	return appendStruct(b, l.Label, l.Title, l.Href, strconv.FormatBool(l.External))
}

func appendVote(b []byte, v *Vote) []byte {
	scores := appendList(nil, v.Scores[:], func(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) })
	return appendStruct(b, v.Validator, v.ValidatorURL, v.Agent, v.TraceURL, v.Read, string(v.TraceHash), v.TraceTitle,
		strconv.Itoa(int(v.Seq)), v.Result, strconv.Itoa(v.Total), string(scores), strconv.FormatBool(v.HasScores),
		v.ValidatedAt.String(), v.File, v.SourceURL)
}

// appendReflect appends v whole, by reflection, for the values appendValue
// does not know: every field of a struct (unexported ones too), what a
// pointer points to ("nil" for none), each item of a slice or an array
// after its length, a map's entries by sorted key, and a time as its
// instant. Two values that differ in any field append different bytes,
// so a key made of a page's view data misses none of it; keyOf uses it
// for the few values a page's key holds whole (docs/decisions.md, "The
// site's cache keys").
func appendReflect(b []byte, v reflect.Value) []byte {
	switch {
	case !v.IsValid():
		return append(b, "nil"...)
	case v.Type() == timeType && v.CanInterface():
		return strconv.AppendInt(append(b, 't'), v.Interface().(time.Time).UnixNano(), 10)
	}
	switch v.Kind() {
	case reflect.String:
		return appendKeyString(b, v.String())
	case reflect.Bool:
		return strconv.AppendBool(b, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(append(b, 'i'), v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(append(b, 'u'), v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.AppendFloat(append(b, 'f'), v.Float(), 'g', -1, 64)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return append(b, "nil"...)
		}
		return appendReflect(append(b, '*'), v.Elem())
	case reflect.Slice, reflect.Array:
		return appendItems(b, v)
	case reflect.Map:
		return appendMap(b, v)
	case reflect.Struct:
		b = append(b, '{')
		for i := range v.NumField() {
			b = appendReflect(append(b, ' '), v.Field(i))
		}
		return append(b, '}')
	}
	return fmt.Appendf(b, "%s?", v.Kind()) // funcs and channels: no page shows one
}

// appendItems appends a slice's or an array's length, then its items.
func appendItems(b []byte, v reflect.Value) []byte {
	b = append(strconv.AppendInt(append(b, '['), int64(v.Len()), 10), ':')
	if v.Type().Elem().Kind() == reflect.Uint8 && v.Kind() == reflect.Slice {
		return append(append(b, v.Bytes()...), ']')
	}
	for i := range v.Len() {
		b = appendReflect(append(b, ' '), v.Index(i))
	}
	return append(b, ']')
}

// appendMap appends a map's entries in the order of their keys' bytes.
func appendMap(b []byte, v reflect.Value) []byte {
	type entry struct{ k, v []byte }
	entries := make([]entry, 0, v.Len())
	for it := v.MapRange(); it.Next(); {
		entries = append(entries, entry{appendReflect(nil, it.Key()), appendReflect(nil, it.Value())})
	}
	slices.SortFunc(entries, func(x, y entry) int { return bytes.Compare(x.k, y.k) })
	b = append(strconv.AppendInt(append(b, "map["...), int64(len(entries)), 10), ':')
	for _, e := range entries {
		b = append(append(append(append(b, ' '), e.k...), '='), e.v...)
	}
	return append(b, ']')
}

var timeType = reflect.TypeFor[time.Time]()
