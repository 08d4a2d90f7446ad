package score

import (
	"testing"

	"github.com/meshnode/meshnode/internal/trace"
)

// parseTrace parses raw the way the heartbeat does before scoring; an
// unreadable trace is scored from its raw bytes.
func parseTrace(t *testing.T, raw []byte) *trace.Trace {
	t.Helper()
	tr, err := trace.Parse(raw)
	if err != nil {
		return nil
	}
	return tr
}

func bodyOf(t *testing.T, raw []byte) []byte {
	t.Helper()
	if tr := parseTrace(t, raw); tr != nil && len(tr.Body) > 0 {
		return tr.Body
	}
	return stripFrontMatter(raw)
}
