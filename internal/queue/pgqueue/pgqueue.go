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
	"encoding/json"
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

// scan reads the items rows holds, in order.
func scan(rows pgx.Rows) ([]*queue.Item, error) {
	var out []*queue.Item
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		var it queue.Item
		if err := json.Unmarshal(data, &it); err != nil {
			return nil, fmt.Errorf("decode queue item: %w", err)
		}
		out = append(out, &it)
	}
	return out, rows.Err()
}

func query(ctx context.Context, tx pgx.Tx, sql string, args ...any) ([]*queue.Item, error) {
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scan(rows)
}

// save writes items back, each row whole.
func save(ctx context.Context, tx pgx.Tx, items []*queue.Item) error {
	b := &pgx.Batch{}
	for _, it := range items {
		data, err := json.Marshal(it)
		if err != nil {
			return fmt.Errorf("encode queue item %s: %w", it.ID, err)
		}
		b.Queue(`UPDATE meshnode_queue SET status = $2, owner = $3, lease_expires = $4, version = $5, updated_at = $6, item = $7 WHERE id = $1`,
			it.ID, it.Status, it.Owner, nullTime(it.LeaseExpires), it.Version, it.UpdatedAt, data)
	}
	return tx.SendBatch(ctx, b).Close()
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func items(ptrs []*queue.Item) []queue.Item {
	out := make([]queue.Item, len(ptrs))
	for i, p := range ptrs {
		out[i] = *p
	}
	return out
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

func (s *Store) list(what, sql string) ([]queue.Item, error) {
	var out []*queue.Item
	err := s.tx(what, func(ctx context.Context, tx pgx.Tx) error {
		var err error
		out, err = query(ctx, tx, sql)
		return err
	})
	return items(out), err
}
