package validation

import "strings"

// parseFormatted reads s when its lines are laid out exactly as Format
// writes them: the files this node writes, 55,000 after three years, every
// one read for SIGNAL's input. It does without the general scan's regular
// expressions and maps, and it declines (ok false) anything else, a
// formatted file whose score or total does not parse included, which the
// general parse then reads and words the error for. For every s it
// accepts, the record is the one the general parse returns
// (FuzzParseFormattedMatchesGeneral).
func parseFormatted(s string) (v *Validation, ok bool) {
	r := formattedReader{rest: s}
	if !r.literal("# VALIDATION\n\n") {
		return nil, false
	}
	var f [len(canonicalKeys)]string
	for i, k := range canonicalKeys {
		if f[i], ok = r.field("", k); !ok {
			return nil, false
		}
	}
	var scores Scores
	hasScores, ok := r.scores(&scores)
	if !ok || !r.literal("\n") {
		return nil, false
	}
	notes, ok := r.field("", "notes")
	if !ok || r.rest != "" {
		return nil, false
	}
	v = canonicalRecord(f, notes)
	v.Scores, v.HasScores = scores, hasScores
	if problems := v.settle(f[keyTotal], "total_score"); len(problems) > 0 {
		return nil, false
	}
	return v, true
}

// formattedReader consumes a formatted validation from the front.
type formattedReader struct{ rest string }

// literal consumes p, or reports that the text does not start with it.
func (r *formattedReader) literal(p string) bool {
	rest, ok := strings.CutPrefix(r.rest, p)
	r.rest = rest
	return ok
}

// field consumes one "<indent><key>:" or "<indent><key>: <value>" line
// and returns the value on one line, as the general scan keeps it.
func (r *formattedReader) field(indent, key string) (string, bool) {
	if !r.literal(indent) || !r.literal(key) || !r.literal(":") {
		return "", false
	}
	line, rest, found := strings.Cut(r.rest, "\n")
	if !found || strings.IndexByte(line, '\r') >= 0 {
		return "", false
	}
	r.rest = rest
	if line == "" {
		return "", true
	}
	value, ok := strings.CutPrefix(line, " ")
	return oneLine(value), ok
}

// scores consumes the scores block, when there is one (has), into s; ok
// is false for a block that is not the six dimensions in order, or whose
// score does not parse.
func (r *formattedReader) scores(s *Scores) (has, ok bool) {
	if !r.literal("\nscores:\n") {
		return false, true
	}
	for i, d := range Dimensions {
		value, ok := r.field("  ", d)
		if !ok {
			return false, false
		}
		n, err := parseScore(value)
		if err != nil {
			return false, false
		}
		s[i] = n
	}
	return true, true
}
