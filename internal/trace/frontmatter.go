package trace

import (
	"bytes"
	"fmt"
	"sort"
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
	lines := splitLines(data)
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i].text) == "" {
		i++
	}
	if i == len(lines) || strings.TrimSpace(strings.TrimPrefix(lines[i].text, "\ufeff")) != "---" {
		return nil, 0, false
	}
	for j := i + 1; j < len(lines) && lines[j].end <= maxFrontMatterBytes; j++ {
		if strings.TrimSpace(lines[j].text) == "---" {
			return data[lines[i].end:lines[j].start], lines[j].end, true
		}
	}
	return nil, 0, false
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
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v, ok := scalarText(m[k]); ok {
			fields = append(fields, field{key: k, value: v})
		}
	}
	return fields, nil
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
