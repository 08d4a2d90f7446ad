package relay

import (
	"context"
	"errors"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/fetch"
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

// faultOf is the fault err shows, or "" for a failure to fetch: tlog's
// refusal of a tile that does not hash to the signed root is an
// alteration.
func faultOf(err error) string {
	var fe *fetch.Error
	var ae *logtiles.AlteredError
	var fk *logtiles.ForkError
	switch {
	case errors.As(err, &fk):
		return FaultFork
	case errors.As(err, &ae):
		return FaultAltered
	case errors.As(err, &fe):
		return ""
	}
	return FaultAltered
}
