package queue_test

import (
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/queuetest"
)

func TestFileConformance(t *testing.T) {
	queuetest.Run(t, func(t *testing.T) queue.Store {
		s := queue.Open(filepath.Join(t.TempDir(), "mesh-state", "queue.json"))
		if err := s.Init(); err != nil {
			t.Fatal(err)
		}
		return s
	})
}
