package site

import (
	"bufio"
	"bytes"
	"strings"
)

// parseIdentity reads IDENTITY.md's fields in order. Real files write them
// as "- Name: czero", "name: czero" or "**Name:** czero"; headings and
// prose are skipped.
func parseIdentity(data []byte) []Field {
	var fields []Field
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		if f, ok := fieldLine(sc.Text()); ok {
			fields = append(fields, f)
		}
	}
	return fields
}

// fieldLine reads one "Key: value" line, bulleted or bold or plain.
func fieldLine(line string) (Field, bool) {
	s := strings.TrimSpace(line)
	s = strings.TrimLeft(s, "-* \t")
	if strings.HasPrefix(strings.TrimSpace(line), "**") {
		s = strings.TrimSpace(line)
	}
	s = strings.TrimPrefix(s, "**")
	key, value, ok := strings.Cut(s, ":")
	if !ok {
		return Field{}, false
	}
	key = strings.TrimSpace(strings.TrimSuffix(key, "**"))
	value = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(value), "**"))
	if key == "" || value == "" || len(key) > 40 || strings.ContainsAny(key, "#|`[]()<>/") {
		return Field{}, false
	}
	return Field{Name: key, Value: value}, true
}
