// Package trace reads the metadata and structure of a trace: a markdown
// file whose fields come from YAML front matter, bold "**Field:**" lines
// under the title, or a trailing block after a final "---". Earlier sources
// win and later ones fill gaps. It never renders markdown, never follows a
// link and trusts nothing it reads: traces are peers' text, and every
// metadata value it returns is cleaned by peertext's rule. It does no I/O
// and imports nothing else of this module but manifest, for the Seq a
// citation names, and peertext.
package trace

import (
	"bytes"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/peertext"
)

// Trace is a parsed trace.
type Trace struct {
	Title    string
	Agent    string
	Date     string
	Type     string
	Category string // rock, pebble, sand, boulder, or what the author wrote
	Tags     []string
	Cites    []Citation
	BuildsOn []string          // URLs or hashes of prior traces
	Fields   map[string]string // every metadata field found, lowercased keys
	Sections []string          // "## " headings in order
	Body     []byte            // markdown with front matter and trailing block removed
}

// Citation is a reference to another trace as "agent/seq".
type Citation struct {
	Agent string // lowercased: authors write "Rex/012" and "rex/012" alike
	Seq   manifest.Seq
}

// Parse reads a trace. It fails only when the bytes are not UTF-8 text or
// hold nothing but white space; a trace with no metadata at all is still a
// trace.
func Parse(data []byte) (*Trace, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("trace: not utf-8 text")
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("trace: empty")
	}
	data, encoded := decodeBase64(data)
	fm, rest := splitFrontMatter(data)
	lines := splitLines(rest)
	lines, trailing := cutTrailingBlock(lines)
	t := &Trace{Fields: map[string]string{}, Body: body(rest, lines)}
	t.fill(fm)
	t.fill(boldFields(lines))
	t.fill(trailing)
	t.fill(bracketTitle(lines))
	if encoded {
		t.fill([]field{{key: "encoding", value: "base64"}})
	}
	t.derive(lines)
	return t, nil
}

// field is one metadata field as found.
type field struct {
	key, value string
}

// fill records fields not already known: the earlier source wins. Keys
// and values are copied out of the lines they were read from, which are
// substrings of one copy of the whole trace (splitLines).
func (t *Trace) fill(fields []field) {
	for _, f := range fields {
		k := normalizeKey(f.key)
		if _, ok := t.Fields[k]; !ok && k != "" {
			t.Fields[strings.Clone(k)] = strings.Clone(peertext.Clean(f.value))
		}
	}
}

// keySpacer reads "_" and "-" in a key as spaces. It is made once: a
// Replacer builds its tables on first use, 1 kB for every field of every
// trace when it was made per key.
var keySpacer = strings.NewReplacer("_", " ", "-", " ")

// normalizeKey lowercases a key and reads "_" and "-" as spaces, so that
// "In Response To", "in_response_to" and "in-response-to" are one field.
func normalizeKey(k string) string {
	k = keySpacer.Replace(strings.ToLower(strings.TrimSpace(k)))
	return strings.Join(strings.Fields(k), " ")
}

// citeFields are the metadata fields whose agent/seq references are the
// trace's declared citations.
var citeFields = []string{"cites", "citations", "refs", "references", "in response to", "validates", "parent", "ask", "builds on"}

func (t *Trace) derive(lines []line) {
	s := readStructure(lines)
	// What comes from the lines is copied out of them (fill says why).
	t.Sections = cloneAll(s.sections)
	t.Title = firstNonEmpty(t.Fields["title"], strings.Clone(peertext.Clean(s.title)))
	t.Agent = firstNonEmpty(t.Fields["agent"], t.Fields["author"])
	t.Date = t.Fields["date"]
	t.Type = t.Fields["type"]
	t.Category = t.Fields["category"]
	t.Tags = splitList(t.Fields["tags"])
	var cites []Citation
	for _, k := range citeFields {
		cites = append(cites, FindCitations([]byte(t.Fields[k]))...)
	}
	t.Cites = dedupCitations(cites)
	t.BuildsOn = buildsOn(t.Fields["builds on"], cloneAll(s.buildsOn))
}

func cloneAll(ss []string) []string {
	for i, s := range ss {
		ss[i] = strings.Clone(s)
	}
	return ss
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// splitList reads "a, b, c", "[a, b]" and YAML lists joined by Parse.
func splitList(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range strings.Split(s, ",") {
		v := strings.Trim(strings.TrimSpace(p), "[]\"'`#* ")
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
