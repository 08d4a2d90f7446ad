package actions

import "strings"

// Annotation levels, as GitHub names the workflow commands.
const (
	Error   = "error"
	Warning = "warning"
	Notice  = "notice"
)

// Annotation is a message GitHub shows on the run's page, printed to stdout
// as a workflow command: ::warning title=T::message.
type Annotation struct {
	Level   string // Error, Warning or Notice
	Title   string
	Message string
}

// String is the workflow command line, escaped so that no peer-supplied
// text can end the command early or start another one.
func (a Annotation) String() string {
	var b strings.Builder
	b.WriteString("::")
	b.WriteString(a.Level)
	if a.Title != "" {
		b.WriteString(" title=")
		b.WriteString(escapeProperty(a.Title))
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
