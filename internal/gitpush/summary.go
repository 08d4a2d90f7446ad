package gitpush

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/meshnode/meshnode/internal/heartbeat/report"
)

// Summary is the heartbeat summary the commit step reads: the JSON that
// `meshnode heartbeat --summary FILE` writes (docs/contracts.md). It is the
// heartbeat's own type, so the two can never drift apart.
type Summary = report.Summary

// ParseSummary decodes a heartbeat summary.
func ParseSummary(data []byte) (*Summary, error) {
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("parse heartbeat summary: %w", err)
	}
	return &s, nil
}

// ReadSummary reads and decodes the heartbeat summary at path.
func ReadSummary(path string) (*Summary, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read heartbeat summary: %w", err)
	}
	s, err := ParseSummary(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
