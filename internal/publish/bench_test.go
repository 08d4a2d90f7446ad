package publish

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
)

// BenchmarkPublishRerun measures the common heartbeat: a node with 1,000
// published traces and nothing new, which must read and hash every file
// and write nothing.
func BenchmarkPublishRerun(b *testing.B) {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, node.TracesDir), 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		text := traceText(fmt.Sprintf("Trace %d", i), "knowledge") + string(make([]byte, 4000))
		if err := os.WriteFile(filepath.Join(dir, node.TracesDir, fmt.Sprintf("%04d.md", i)), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := Publish(opts(dir, t0)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := Publish(opts(dir, t1))
		if err != nil || res.Changed {
			b.Fatalf("rerun: changed %v, err %v", res != nil && res.Changed, err)
		}
	}
}
