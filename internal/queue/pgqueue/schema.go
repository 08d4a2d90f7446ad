package pgqueue

import (
	"context"

	"github.com/jackc/pgx/v5"
)

const schema = `
CREATE TABLE IF NOT EXISTS meshnode_queue (
	id            text PRIMARY KEY,
	hash          text NOT NULL UNIQUE,
	status        text NOT NULL,
	owner         text NOT NULL DEFAULT '',
	lease_expires timestamptz,
	version       integer NOT NULL,
	queued_at     timestamptz NOT NULL,
	seq           integer NOT NULL,
	updated_at    timestamptz NOT NULL,
	item          jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS meshnode_queue_order ON meshnode_queue (queued_at, seq, id);
CREATE INDEX IF NOT EXISTS meshnode_queue_owner ON meshnode_queue (owner) WHERE status = 'in_progress';
`

// Connect opens the store at dsn and makes sure its tables exist (Open,
// then Init), closing it again when Init fails.
func Connect(dsn string) (*Store, error) {
	s, err := Open(dsn)
	if err != nil {
		return nil, err
	}
	if err := s.Init(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Init creates the table and its indexes when they do not exist; several
// processes may call it at once.
func (s *Store) Init() error {
	return s.tx("init queue", func(ctx context.Context, tx pgx.Tx) error {
		// CREATE ... IF NOT EXISTS races with itself; one lock orders them.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('meshnode_queue'))"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, schema)
		return err
	})
}
