package actions

import (
	"fmt"
	"os"
	"strings"
)

// Environment variables the runner sets.
const (
	EnvActions     = "GITHUB_ACTIONS"      // "true" inside a workflow run
	EnvStepSummary = "GITHUB_STEP_SUMMARY" // file the job summary is appended to
	EnvOutput      = "GITHUB_OUTPUT"       // file step outputs are appended to
)

// Running reports whether getenv describes a GitHub Actions run.
func Running(getenv func(string) string) bool {
	return getenv(EnvActions) == "true"
}

// AppendSummary appends markdown to the job summary file at path. The
// runner owns that file and reads it after the step: appending is its
// protocol, so this is not an atomic replace.
func AppendSummary(path, markdown string) error {
	return appendFile(path, markdown)
}

// SetOutput appends name=value to the step output file at path. Values are
// single lines; a value with a line break is refused rather than allowed to
// forge another output.
func SetOutput(path, name, value string) error {
	if strings.ContainsAny(name+value, "\r\n") || strings.Contains(name, "=") || name == "" {
		return fmt.Errorf("step output %q: name and value must be one line, name without '='", name)
	}
	return appendFile(path, name+"="+value+"\n")
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return fmt.Errorf("append to %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return nil
}
