package score

// nextNamed finds the next named system from s[from:]: a CamelCase name,
// an acronym or a version,
// `\b(?:[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Z]{3,6}|v\d+\.\d+(?:\.\d+)?)\b`.
func nextNamed(s string, from int) (int, int) {
	for i := from; i < len(s); i++ {
		if c := s[i]; (isUpper(c) || c == 'v') && !wordAt(s, i-1) {
			if e := namedAt(s, i); e >= 0 {
				return i, e
			}
		}
	}
	return -1, -1
}

// namedAt returns the end of the named system (nextNamed) at s[i], or -1.
func namedAt(s string, i int) int {
	if s[i] == 'v' {
		return versionAt(s, i)
	}
	// CamelCase: the lowercase run must end on a capital, and the name
	// takes every letter and digit after it.
	if j := runOf(s, i+1, func(c byte) bool { return isLower(c) || isDigit(c) }); j > i+1 {
		if j < len(s) && isUpper(s[j]) {
			if q := runOf(s, j+1, isAlnum); !wordAt(s, q) {
				return q
			}
		}
		return -1
	}
	// An acronym of 3 to 6 capitals, not part of a longer word.
	if r := runOf(s, i, isUpper); r-i >= 3 && r-i <= 6 && !wordAt(s, r) {
		return r
	}
	return -1
}

// versionAt returns the end of "v1.2" or "v1.2.3" at s[i], or -1.
func versionAt(s string, i int) int {
	j := runOf(s, i+1, isDigit)
	if j == i+1 || j >= len(s) || s[j] != '.' {
		return -1
	}
	p := runOf(s, j+1, isDigit)
	if p == j+1 {
		return -1
	}
	if p+1 < len(s) && s[p] == '.' && isDigit(s[p+1]) {
		if q := runOf(s, p+1, isDigit); !wordAt(s, q) {
			return q
		}
	}
	if !wordAt(s, p) {
		return p
	}
	return -1
}
