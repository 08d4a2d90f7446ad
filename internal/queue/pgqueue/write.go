package pgqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/meshnode/meshnode/internal/queue"
)

// Enqueue adds the items whose hash the table does not hold yet, whatever
// the status of the one it holds, in one transaction; an item refused (an
// ID that holds another trace, a value PostgreSQL cannot store, such as a
// NUL in jsonb) is reported as a *queue.ItemError and the other items are
// kept: each is inserted under a savepoint of its own. Settled items older
// than queue.SettledRetention are dropped first, as the file store drops
// them.
func (s *Store) Enqueue(its ...queue.Item) (int, error) {
	if len(its) == 0 {
		return 0, nil
	}
	var added int
	var refused []error
	err := s.tx("enqueue", func(ctx context.Context, tx pgx.Tx) error {
		added, refused = 0, nil
		now := s.Now()
		if err := prune(ctx, tx, now); err != nil {
			return err
		}
		for _, in := range its {
			ok, err := enqueueOne(ctx, tx, in, now)
			var ie *queue.ItemError
			switch {
			case errors.As(err, &ie):
				refused = append(refused, ie)
			case err != nil:
				return err
			case ok:
				added++
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return added, errors.Join(refused...)
}

// enqueueOne inserts in under a savepoint, so that a value the database
// refuses costs this item alone. It reports whether it added in, and a
// *queue.ItemError when in is refused.
func enqueueOne(ctx context.Context, tx pgx.Tx, in queue.Item, now time.Time) (bool, error) {
	refuse := func(err error) (bool, error) {
		return false, &queue.ItemError{ID: in.ID, Hash: in.Hash, Err: err}
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return false, err
	}
	ok, err := insert(ctx, sp, in, now)
	if err != nil {
		if rerr := sp.Rollback(ctx); rerr != nil {
			return false, errors.Join(err, rerr)
		}
		if itemData(err) {
			return refuse(err)
		}
		return false, err
	}
	if err := sp.Commit(ctx); err != nil {
		return false, err
	}
	if ok {
		return true, nil
	}
	if in.ID == "" {
		return refuse(queue.ErrIDTaken)
	}
	var held bool
	if err := tx.QueryRow(ctx, `SELECT true FROM meshnode_queue WHERE hash = $1`, in.Hash).Scan(&held); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return false, err
	}
	if !held {
		return refuse(queue.ErrIDTaken)
	}
	return false, nil
}

// itemData reports whether err refuses the item's own data rather than
// the store: it could not be encoded, or PostgreSQL raised a data
// exception (class 22: 22P05 for a NUL in jsonb, 22021 for bytes that are
// not UTF-8) or a program limit (class 54: a value too large).
func itemData(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "22") || strings.HasPrefix(pgErr.Code, "54")
	}
	var je *json.UnsupportedValueError
	return errors.As(err, &je)
}

// insert adds in unless its ID or hash is taken, and reports whether it did.
func insert(ctx context.Context, tx pgx.Tx, in queue.Item, now time.Time) (bool, error) {
	if in.ID == "" {
		return false, nil
	}
	it := queue.Fresh(in, now)
	data, err := json.Marshal(it)
	if err != nil {
		return false, fmt.Errorf("encode queue item %s: %w", it.ID, err)
	}
	tag, err := tx.Exec(ctx, `INSERT INTO meshnode_queue (id, hash, status, owner, version, queued_at, seq, updated_at, item)
		VALUES ($1, $2, $3, '', $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
		it.ID, it.Hash, it.Status, it.Version, it.QueuedAt, it.Seq, it.UpdatedAt, data)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// Claim gives c.Owner the items it holds in progress, then the oldest
// claimable ones, up to c.Max, in one transaction. Rows another claim has
// locked are skipped, not waited for. With a Filter every claimable row is
// locked while the filter reads them.
func (s *Store) Claim(c queue.Claim) ([]queue.Item, error) {
	var got []*queue.Item
	err := s.tx("claim", func(ctx context.Context, tx pgx.Tx) error {
		got = nil
		mine, err := query(ctx, tx, `SELECT item FROM meshnode_queue WHERE status = 'in_progress' AND owner = $1`+order+` LIMIT $2 FOR UPDATE`,
			c.Owner, limit(c.Max))
		if err != nil {
			return err
		}
		for _, it := range mine {
			c.Resume(it)
		}
		got = mine
		left := c.Max - len(got)
		if c.Max > 0 && left <= 0 {
			return save(ctx, tx, got)
		}
		lim := limit(left)
		if c.Filter != nil {
			lim = nil
		}
		// A queued item noted queue.WaitWithdrawn is not claimable
		// (queue.Item.Withheld); its reason lives in the item alone.
		free, err := query(ctx, tx, `SELECT item FROM meshnode_queue
			WHERE ((status = 'queued' AND item->>'reason' IS DISTINCT FROM $4)
				OR (status = 'in_progress' AND lease_expires <= $1 AND owner <> $2))`+order+`
			LIMIT $3 FOR UPDATE SKIP LOCKED`, c.Now, c.Owner, lim, queue.WaitWithdrawn)
		if err != nil {
			return err
		}
		for _, it := range free {
			if c.Max > 0 && len(got) >= c.Max {
				break
			}
			if c.Filter != nil && !c.Filter(*it) {
				continue
			}
			c.Take(it)
			got = append(got, it)
		}
		return save(ctx, tx, got)
	})
	if err != nil {
		return nil, err
	}
	return items(got), nil
}

// limit is max as a LIMIT: NULL, no limit, when max is 0.
func limit(max int) *int {
	if max <= 0 {
		return nil
	}
	return &max
}

// prune drops the settled items settled more than
// queue.SettledRetention before now, as the file store drops them.
func prune(ctx context.Context, tx pgx.Tx, now time.Time) error {
	_, err := tx.Exec(ctx, `DELETE FROM meshnode_queue WHERE NOT `+active+` AND updated_at < $1`, now.Add(-queue.SettledRetention))
	return err
}

// Update applies updates in order in one transaction, each by
// queue.Update.Apply on the rows it names, locked in ID order; then the
// settled items older than queue.SettledRetention are dropped, as the
// file store drops them at each write.
func (s *Store) Update(updates ...queue.Update) ([]error, error) {
	results := make([]error, len(updates))
	err := s.tx("update queue", func(ctx context.Context, tx pgx.Tx) error {
		ids := make([]string, len(updates))
		for i, u := range updates {
			ids[i] = u.ID
		}
		rows, err := query(ctx, tx, `SELECT item FROM meshnode_queue WHERE id = ANY($1) ORDER BY id FOR UPDATE`, ids)
		if err != nil {
			return err
		}
		byID := make(map[string]*queue.Item, len(rows))
		for _, it := range rows {
			byID[it.ID] = it
		}
		changed := map[string]bool{}
		for i, u := range updates {
			if results[i] = u.Apply(byID); results[i] == nil {
				changed[u.ID] = true
			}
		}
		var out []*queue.Item
		for _, it := range rows {
			if changed[it.ID] {
				out = append(out, it)
			}
		}
		if err := save(ctx, tx, out); err != nil {
			return err
		}
		return prune(ctx, tx, s.Now())
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// Drop deletes the rows at work with these IDs in one transaction; when
// it deletes some, the settled items older than queue.SettledRetention
// are dropped too, as the file store drops them at its writes.
func (s *Store) Drop(ids ...string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	var dropped int
	err := s.tx("drop queue items", func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM meshnode_queue WHERE id = ANY($1) AND `+active, ids)
		if err != nil {
			return err
		}
		if dropped = int(tag.RowsAffected()); dropped == 0 {
			return nil
		}
		return prune(ctx, tx, s.Now())
	})
	if err != nil {
		return 0, err
	}
	return dropped, nil
}

// Rename moves the rows listed at from, at work and settled, to the URL
// to (queue.Item.MoveTo) in one transaction, and returns how many it
// moved.
func (s *Store) Rename(from, to string) (int, error) {
	if from == "" || to == "" {
		return 0, fmt.Errorf("move queue items from %q to %q: a peer URL is empty", from, to)
	}
	if from == to {
		return 0, nil
	}
	var moved []*queue.Item
	err := s.tx("move the queue items of "+from+" to "+to, func(ctx context.Context, tx pgx.Tx) error {
		rows, err := query(ctx, tx, `SELECT item FROM meshnode_queue WHERE item->>'from_url' = $1 ORDER BY id FOR UPDATE`, from)
		if err != nil {
			return err
		}
		for _, it := range rows {
			it.MoveTo(from, to)
		}
		moved = rows
		return save(ctx, tx, rows)
	})
	if err != nil {
		return 0, err
	}
	return len(moved), nil
}
