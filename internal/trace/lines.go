package trace

import (
	"bytes"
	"strings"
	"unsafe"
)

// line is one line of the trace, with where it sits in the bytes it was
// cut from, and whether it is inside a fenced code block.
type line struct {
	text       string // without the line ending
	start, end int    // byte offsets; end includes the line ending
	fenced     bool   // inside ``` or ~~~ (fence lines included)
}

// splitLines cuts data into lines and marks fenced code, where nothing
// looks like metadata or a heading.
func splitLines(data []byte) []line {
	// Every line's text is a substring of data itself, read as a string
	// without a copy: a copy per line was a tenth of what a site build
	// allocated, and one copy of each trace then 20 MB of a rebuild's
	// garbage for 10,000 traces. The lines never outlive Parse, and
	// everything Parse keeps of them is copied out (Trace.fill,
	// Trace.derive), so no string it returns shares data's bytes
	// (TestParsedTraceHoldsNoneOfItsInput, FuzzParse), and data is not
	// changed while it runs.
	src := unsafe.String(unsafe.SliceData(data), len(data))
	lines := make([]line, 0, bytes.Count(data, []byte("\n"))+1)
	inFence := false
	fence := ""
	for start := 0; start < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			end = start + i
		}
		next := end
		if next < len(data) {
			next++
		}
		text := strings.TrimSuffix(src[start:end], "\r")
		l := line{text: text, start: start, end: next, fenced: inFence}
		if f := fenceMark(text); f != "" && (!inFence || strings.HasPrefix(strings.TrimSpace(text), fence)) {
			if !inFence {
				fence = f
			}
			inFence = !inFence
			l.fenced = true
		}
		lines = append(lines, l)
		start = next
	}
	return lines
}

// fenceMark returns the fence a line opens or closes ("```" or "~~~"), or "".
func fenceMark(s string) string {
	t := strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(t, "```"):
		return "```"
	case strings.HasPrefix(t, "~~~"):
		return "~~~"
	}
	return ""
}

// body returns the bytes the lines cover, a slice of data.
func body(data []byte, lines []line) []byte {
	if len(lines) == 0 {
		return []byte{}
	}
	return data[lines[0].start:lines[len(lines)-1].end]
}
