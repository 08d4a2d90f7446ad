package node

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkOpenPublished opens a node with 10,000 published validations
// of about 600 bytes, as a year of validating writes (the reads and hashes
// of its published files are most of Open's time).
func BenchmarkOpenPublished(b *testing.B) {
	dir := b.TempDir()
	vals := filepath.Join(dir, ValidationsDir)
	if err := os.MkdirAll(vals, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range 10000 {
		body := fmt.Sprintf("# VALIDATION\n\nvalidator: tester\ntrace_hash: sha256:%064x\nresult: pass\ntotal_score: 20\n%0500d\n", i, i)
		if err := os.WriteFile(filepath.Join(vals, fmt.Sprintf("val-%012x.md", i)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if _, err := Open(dir, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
