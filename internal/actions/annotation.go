package actions

import (
	"strconv"
	"strings"
)

// Annotation levels, as GitHub names the workflow commands.
const (
	Error   = "error"
	Warning = "warning"
	Notice  = "notice"
)

// Annotation is a message GitHub shows on the run's page, printed to stdout
// as a workflow command: ::warning title=T::message, or, at a file's line,
// ::error file=F,line=L::message.
type Annotation struct {
	Level   string // Error, Warning or Notice
	Title   string
	File    string // the file it is about, relative to the repository; "" for none
	Line    int    // with File: the line, from 1; 0 for none
	Message string
}

// String is the workflow command line, escaped so that no peer-supplied
// text can end the command early or start another one.
func (a Annotation) String() string {
	var b strings.Builder
	b.WriteString("::")
	b.WriteString(a.Level)
	var props []string
	if a.File != "" {
		props = append(props, "file="+escapeProperty(a.File))
		if a.Line > 0 {
			props = append(props, "line="+strconv.Itoa(a.Line))
		}
	}
	if a.Title != "" {
		props = append(props, "title="+escapeProperty(a.Title))
	}
	if len(props) > 0 {
		b.WriteString(" ")
		b.WriteString(strings.Join(props, ","))
	}
	b.WriteString("::")
	b.WriteString(escapeData(a.Message))
	return b.String()
}

// escapeData escapes a command's message the way the runner unescapes it.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a property value, which also ends at ':' and ','.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
