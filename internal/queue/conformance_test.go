package queue_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/queuetest"
)

func TestFileConformance(t *testing.T) {
	queuetest.Run(t, func(t *testing.T, now func() time.Time) queue.Store {
		s := queue.Open(filepath.Join(t.TempDir(), "mesh-state", "queue.json"))
		s.Now = now
		if err := s.Init(); err != nil {
			t.Fatal(err)
		}
		return s
	})
}
