package relay

import (
	"context"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/logtiles"
	"github.com/meshnode/meshnode/internal/translog"
)

// Bounds of a relay log's files: a hash tile holds 256 hashes, a bundle
// 256 entries of at most translog.MaxEntryBytes after their 2-byte length.
const (
	maxHashTileBytes = (1 << translog.TileHeight) * tlog.HashSize
	maxBundleBytes   = (1 << translog.TileHeight) * (translog.MaxEntryBytes + 2)
)

// tiles is a reader of the relay's log whose files get fetches, for one
// read: it keeps no tiles across reads, and stops after the bundle that
// reaches maxBytes.
func tiles(ctx context.Context, get logtiles.Get, maxBytes int64) *logtiles.Reader {
	return logtiles.NewReader(ctx, get, logtiles.Options{MaxHashTile: maxHashTileBytes, MaxBundle: maxBundleBytes, MaxBytes: maxBytes})
}
