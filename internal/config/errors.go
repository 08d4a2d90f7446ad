package config

import (
	"fmt"
	"strings"
)

// Error is a configuration mistake a person can fix: one line per problem,
// each naming the file, line and key, and a hint.
type Error struct {
	File     string
	Problems []Problem
	Hint     string
}

// Problem is one mistake in the file.
type Problem struct {
	Line int    // 1-based; 0 when the mistake is an absence
	Key  string // dotted path, e.g. heartbeat.concurrency; "" for the file
	Msg  string
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		where := e.File
		if p.Line > 0 {
			where = fmt.Sprintf("%s:%d", e.File, p.Line)
		}
		if p.Key != "" {
			where += ": " + p.Key
		}
		lines[i] = where + ": " + p.Msg
	}
	return strings.Join(lines, "\n")
}
