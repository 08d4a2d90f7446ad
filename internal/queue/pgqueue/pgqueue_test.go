package pgqueue_test

import (
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/pgqueue"
	"github.com/meshnode/meshnode/internal/queue/pgtest"
	"github.com/meshnode/meshnode/internal/queue/queuetest"
)

func TestConformance(t *testing.T) {
	srv := pgtest.Start(t)
	queuetest.Run(t, func(t *testing.T, now func() time.Time) queue.Store {
		s, err := pgqueue.Open(srv.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		if err := s.Init(); err != nil {
			t.Fatal(err)
		}
		return s.WithNow(now)
	})
}

// TestEnqueueRefusesWhatPostgreSQLCannotHoldAndKeepsTheRest: a NUL in an
// item's title or type is refused by jsonb (22P05); that item alone is
// reported, as a *queue.ItemError, and the others of the same Enqueue are
// stored.
func TestEnqueueRefusesWhatPostgreSQLCannotHoldAndKeepsTheRest(t *testing.T) {
	srv := pgtest.Start(t)
	s, err := pgqueue.Open(srv.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	badTitle, badType := queuetest.Item(1), queuetest.Item(3)
	badTitle.Title = "evil\x00title"
	badType.Type = "capability\x00"
	added, err := s.Enqueue(badTitle, queuetest.Item(2), badType, queuetest.Item(4))
	if added != 2 {
		t.Errorf("added %d, want the 2 good items", added)
	}
	refused, ok := queue.ItemErrors(err)
	if !ok || len(refused) != 2 || refused[0].Hash != badTitle.Hash || refused[1].Hash != badType.Hash {
		t.Fatalf("Enqueue error %v; want the two bad items refused alone", err)
	}
	if !strings.Contains(refused[0].Error(), "22P05") {
		t.Errorf("refusal %q does not say why", refused[0])
	}
	all, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].ID != queuetest.Item(2).ID || all[1].ID != queuetest.Item(4).ID {
		t.Errorf("stored %+v, want items 2 and 4", all)
	}
}
