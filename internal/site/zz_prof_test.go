package site

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestZZProf(t *testing.T) {
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	for i := 0; i < 8; i++ {
		n, err := Load("/tmp/sitecorpus.muNS/corpus", now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Write(context.Background(), n, filepath.Join(t.TempDir(), "s")); err != nil {
			t.Fatal(err)
		}
	}
}
