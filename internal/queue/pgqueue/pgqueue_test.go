package pgqueue_test

import (
	"testing"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/pgqueue"
	"github.com/meshnode/meshnode/internal/queue/pgtest"
	"github.com/meshnode/meshnode/internal/queue/queuetest"
)

func TestConformance(t *testing.T) {
	srv := pgtest.Start(t)
	queuetest.Run(t, func(t *testing.T) queue.Store {
		s, err := pgqueue.Open(srv.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		if err := s.Init(); err != nil {
			t.Fatal(err)
		}
		return s
	})
}
