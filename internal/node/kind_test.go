package node

import (
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

func TestKindOfGoesByTheFilesDirectory(t *testing.T) {
	tests := []struct {
		name string
		e    manifest.Entry
		want Kind
	}{
		{"a trace", manifest.Entry{File: "traces/001.md", Type: "knowledge"}, KindTrace},
		{"a validation trace is a trace", manifest.Entry{File: "traces/014-trace.md", Type: "validation"}, KindTrace},
		{"a validation file", manifest.Entry{File: "validations/val-0123456789ab.md", Type: "validation"}, KindValidation},
		{"a validation file of any type", manifest.Entry{File: "validations/x.md", Type: "knowledge"}, KindValidation},
		{"a dispute", manifest.Entry{File: "disputes/dispute-52c3935626c1.md", Type: "dispute"}, KindDispute},
		{"a dispute written with ./", manifest.Entry{File: "./disputes/d.md"}, KindDispute},
		{"a key statement of the log", manifest.Entry{File: "log/key/rotation-42", Type: "key"}, KindKey},
		{"a file elsewhere is a trace", manifest.Entry{File: "notes/validations/x.md", Type: "dispute"}, KindTrace},
		{"no file column: by type", manifest.Entry{Type: "Validation"}, KindValidation},
		{"no file column, dispute", manifest.Entry{Type: "dispute"}, KindDispute},
		{"no file column, other", manifest.Entry{Type: "knowledge"}, KindTrace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := KindOf(tt.e); got != tt.want {
				t.Errorf("KindOf(%+v) = %s, want %s", tt.e, got, tt.want)
			}
		})
	}
}
