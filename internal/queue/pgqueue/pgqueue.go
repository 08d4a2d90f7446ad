// Package pgqueue keeps a node's validation queue in PostgreSQL, so that
// workers on several machines score one node's queue (docs/queue.md). It
// implements queue.Store by the same rules as the file store (queue.Fresh,
// queue.Claim.Take, queue.Update.Apply) and passes the same conformance
// suite (queuetest). Claims lock rows with FOR UPDATE SKIP LOCKED, so
// concurrent workers never wait on each other's items; leases are columns
// of the table, compared with the claimer's clock.
//
// The connection string comes from the environment only (EnvDSN, then
// DATABASE_URL), never from mesh.yaml, which a node commits to a public
// repository.
package pgqueue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/meshnode/meshnode/internal/queue"
)

// EnvDSN names the environment variable that holds the connection string;
// DATABASE_URL is read when it is unset.
const EnvDSN = "MESHNODE_QUEUE_DSN"

// DSNFromEnv returns the connection string from EnvDSN or DATABASE_URL.
func DSNFromEnv() (string, error) {
	for _, name := range []string{EnvDSN, "DATABASE_URL"} {
		if v := os.Getenv(name); v != "" {
			return v, nil
		}
	}
	return "", fmt.Errorf("no queue database: set %s (or DATABASE_URL) to a PostgreSQL connection string", EnvDSN)
}

// Timeout bounds each operation, its retries included.
const Timeout = 30 * time.Second

// Store is the queue in the table meshnode_queue of one database.
type Store struct {
	pool *pgxpool.Pool
	// Now stamps items Enqueue adds without a QueuedAt and dates the
	// retention of settled items (queue.SettledRetention); default
	// time.Now.
	Now func() time.Time
}

var _ queue.Store = (*Store)(nil)

// Open connects to the database dsn names. Call Init before the first use
// of a new database, and Close at the end.
func Open(dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx's message may quote the string, password included.
		return nil, errors.New("queue database: the connection string does not parse")
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("queue database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("queue database: %w", err)
	}
	return &Store{pool: pool, Now: time.Now}, nil
}

// WithNow returns the store on the same connections with another clock:
// a node stamps what it enqueues with its heartbeat's time.
func (s *Store) WithNow(now func() time.Time) *Store {
	c := *s
	c.Now = now
	return &c
}

// NodeDSNFromEnv returns the connection string of the queue a node keeps
// in PostgreSQL: EnvDSN only, never DATABASE_URL, which a machine may set
// for something else; ok is false when it is unset and the node keeps its
// queue in mesh-state/ (docs/queue.md).
func NodeDSNFromEnv() (dsn string, ok bool) {
	dsn = os.Getenv(EnvDSN)
	return dsn, dsn != ""
}

// Close closes the store's connections.
func (s *Store) Close() { s.pool.Close() }

// tx runs fn in one transaction, retried when PostgreSQL aborts it for a
// deadlock or a serialization failure.
func (s *Store) tx(what string, fn func(ctx context.Context, tx pgx.Tx) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	var err error
	for range 5 {
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return fn(ctx, tx) })
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || (pgErr.Code != "40P01" && pgErr.Code != "40001") {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

const order = ` ORDER BY queued_at, seq, id`

// Queued returns the items with status queued, oldest first.
func (s *Store) Queued() ([]queue.Item, error) {
	return s.list("list queued items", `SELECT item FROM meshnode_queue WHERE status = 'queued'`+order)
}

// List returns every item, oldest first.
func (s *Store) List() ([]queue.Item, error) {
	return s.list("list queue", `SELECT item FROM meshnode_queue`+order)
}

// active selects the rows of the items not settled (queue.Item.Settled):
// queued, in progress, or done with a result not yet published.
const active = `(status IN ('queued', 'in_progress') OR
	(status = 'done' AND item->'result' IS NOT NULL AND item->'result'->>'published_at' IS NULL))`

// Active returns the items not settled, oldest first, and the settled
// ones counted by status, in one transaction.
func (s *Store) Active() (queue.Active, error) {
	var a queue.Active
	var out []*queue.Item
	err := s.tx("list active queue items", func(ctx context.Context, tx pgx.Tx) error {
		a = queue.Active{Settled: map[string]int{queue.StatusDone: 0, queue.StatusFailed: 0, queue.StatusSkipped: 0}}
		var err error
		if out, err = query(ctx, tx, `SELECT item FROM meshnode_queue WHERE `+active+order); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT status, count(*), bool_or(updated_at < $1) FROM meshnode_queue WHERE NOT `+active+` GROUP BY status`,
			s.Now().Add(-queue.SettledRetention))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var status string
			var n int
			var expired bool
			if err := rows.Scan(&status, &n, &expired); err != nil {
				return err
			}
			a.Settled[status] += n
			a.Expired = a.Expired || expired
		}
		return rows.Err()
	})
	if err != nil {
		return queue.Active{}, err
	}
	a.Items = items(out)
	return a, nil
}

func (s *Store) list(what, sql string) ([]queue.Item, error) {
	var out []*queue.Item
	err := s.tx(what, func(ctx context.Context, tx pgx.Tx) error {
		var err error
		out, err = query(ctx, tx, sql)
		return err
	})
	return items(out), err
}
