package site

import (
	"strconv"

	"github.com/meshnode/meshnode/internal/manifest"
)

// appendValue appends p as fmt's %v formats it, for the kinds of values
// cache keys hold by the thousand (numbers, flags, tags, metadata,
// citation links, votes), and reports false for any other: fmt found
// each by reflection, 0.2 CPU s of a cold build's keys.
// TestAppendValueMatchesFmt checks it against fmt, field by field.
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
		return appendList(b, v, appendString), true
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

// appendList is a slice as %v writes it: "[a b c]".
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

func appendString(b []byte, s string) []byte { return append(b, s...) }

// appendStruct is a struct of strings as %v writes it: "{a b c}".
func appendStruct(b []byte, fields ...string) []byte {
	b = append(b, '{')
	for i, f := range fields {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, f...)
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
