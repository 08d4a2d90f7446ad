// Package trace reads the metadata and structure of a trace: a markdown
// file whose fields come from YAML front matter, bold "**Field:**" lines
// under the title, or a trailing block after a final "---". It does no I/O.
package trace

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
	Agent string
	Seq   int
}
