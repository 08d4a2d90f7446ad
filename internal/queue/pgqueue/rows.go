package pgqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/meshnode/meshnode/internal/queue"
)

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
