package score

import "strings"

// pathExts are the file name extensions a path may end with, in the
// order the reference tries them.
var pathExts = []string{"md", "go", "py", "js", "ts", "json", "yaml", "yml", "sh", "txt", "toml", "html"}

// nextPath finds the next path or file name from s[from:], after the
// start of the line, a space, "(" or a backtick: the group of
// `(?:^|[\s(`])((?:/[A-Za-z0-9._{}:-]+){2,}/?|[A-Za-z0-9_-]+\.(?:md|go|…|html))\b`.
// It returns the bounds of the path, without the character before it.
func nextPath(s string, from int) (int, int) {
	for i := from; i < len(s); i++ {
		if i == 0 {
			if e := pathAt(s, 0); e >= 0 {
				return 0, e
			}
		}
		if c := s[i]; isSpace(c) || c == '(' || c == '`' {
			if e := pathAt(s, i+1); e >= 0 {
				return i + 1, e
			}
		}
	}
	return -1, -1
}

// pathAt returns the end of the path or file name (nextPath) at s[j], or -1.
func pathAt(s string, j int) int {
	if j < len(s) && s[j] == '/' {
		return slashPathAt(s, j)
	}
	k := runOf(s, j, func(c byte) bool { return isWordByte(c) || c == '-' })
	if k == j || k >= len(s) || s[k] != '.' {
		return -1
	}
	for _, ext := range pathExts {
		if e := k + 1 + len(ext); strings.HasPrefix(s[k+1:], ext) && !wordAt(s, e) {
			return e
		}
	}
	return -1
}

func isPathByte(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '{' || c == '}' || c == ':' || c == '-'
}

// slashPathAt returns the end of a path of two or more "/segment"s at
// s[j], or -1. Where the longest path does not end on a word boundary it
// backs off in the order a backtracking regexp would: within the last
// segment, then to an earlier one, keeping at least two.
func slashPathAt(s string, j int) int {
	var starts, ends []int
	for p := j; p < len(s) && s[p] == '/'; {
		r := runOf(s, p+1, isPathByte)
		if r == p+1 {
			break
		}
		starts, ends = append(starts, p), append(ends, r)
		p = r
	}
	for k := len(starts) - 1; k >= 1; k-- {
		p := ends[k]
		if p < len(s) && s[p] == '/' && boundary(s, p+1) { // with the optional trailing "/"
			return p + 1
		}
		for e := p; e >= starts[k]+2; e-- {
			if boundary(s, e) {
				return e
			}
		}
	}
	return -1
}
