package trace

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adrg/frontmatter"
	"gopkg.in/yaml.v3"
)

// maxFrontMatterBytes bounds the YAML handed to the decoder; real front
// matter is a few hundred bytes.
const maxFrontMatterBytes = 64 << 10

// yamlFormat is the only front matter read: YAML between "---" lines. The
// library's defaults would also try TOML and JSON ("{" on the first line).
var yamlFormat = frontmatter.NewFormat("---", "---", yaml.Unmarshal)

// splitFrontMatter returns the fields of the YAML front matter and the
// bytes after it. Without front matter, or with a block that is neither
// YAML nor plain "key: value" lines, it returns no fields and all of data.
func splitFrontMatter(data []byte) ([]field, []byte) {
	block, end, ok := frontMatterBlock(data)
	if !ok {
		return nil, data
	}
	if fields, ok := plainFrontMatter(data[:end]); ok {
		return fields, data[end:]
	}
	if fields, err := decodeYAML(data[:end]); err == nil {
		return fields, data[end:]
	}
	// Not valid YAML (a title with a colon in it, say): read the lines as
	// "key: value" if they all look like that.
	if fields, ok := keyLines(splitLines(block), false); ok {
		return fields, data[end:]
	}
	return nil, data
}

// frontMatterBlock finds front matter: "---" as the first non-blank line
// and a closing "---" line, within maxFrontMatterBytes. It returns the
// lines between the delimiters and the offset just past the closing one.
func frontMatterBlock(data []byte) (block []byte, end int, ok bool) {
	// Lines are cut one at a time: splitLines would copy every line of the
	// body to find the few at its top.
	start, next := 0, 0
	var text []byte
	for next < len(data) {
		start = next
		text, next = lineAt(data, start)
		if len(bytes.TrimSpace(text)) != 0 {
			break
		}
	}
	if !bytes.Equal(bytes.TrimSpace(bytes.TrimPrefix(text, []byte("\ufeff"))), []byte("---")) {
		return nil, 0, false
	}
	open := next
	for next < len(data) {
		start = next
		if text, next = lineAt(data, start); next > maxFrontMatterBytes {
			break
		}
		if bytes.Equal(bytes.TrimSpace(text), []byte("---")) {
			return data[open:start], next, true
		}
	}
	return nil, 0, false
}

// lineAt is the line of data starting at start, without its line ending,
// and the offset of the next line.
func lineAt(data []byte, start int) (text []byte, next int) {
	end := bytes.IndexByte(data[start:], '\n')
	if end < 0 {
		return bytes.TrimSuffix(data[start:], []byte("\r")), len(data)
	}
	return bytes.TrimSuffix(data[start:start+end], []byte("\r")), start + end + 1
}

// decodeYAML decodes front matter through the frontmatter library. The
// decoder sees peers' bytes, so a panic inside it is turned into an error.
func decodeYAML(data []byte) (fields []field, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("front matter: yaml decoder panicked: %v", r)
		}
	}()
	var m map[string]any
	if _, err := frontmatter.Parse(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))), &m, yamlFormat); err != nil {
		return nil, fmt.Errorf("front matter: %w", err)
	}
	for k, v := range m {
		if text, ok := scalarText(v); ok {
			fields = append(fields, field{key: k, value: text})
		}
	}
	sortFields(fields)
	return fields, nil
}

// sortFields orders fields by key, as the map they were read into would
// not: the earlier of two fields meaning the same (Parse's normalizeKey)
// wins, so the order must not change from one run to the next.
func sortFields(fields []field) {
	slices.SortFunc(fields, func(a, b field) int { return strings.Compare(a.key, b.key) })
}

// scalarText renders a front matter value as field text: scalars as
// written, lists joined by ", ". Maps are not metadata this package uses.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case time.Time:
		return x.UTC().Format(time.RFC3339), true
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := scalarText(e); ok && s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", "), true
	case map[string]any:
		return "", false
	default:
		return fmt.Sprint(x), true
	}
}
