package logsource

import (
	"context"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/logtiles"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/source"
	"github.com/meshnode/meshnode/internal/translog"
)

// Bounds of a log's files: a hash tile holds 256 hashes, an entry bundle
// 256 entries of at most translog.MaxEntryBytes after their 2-byte length.
const (
	maxHashTileBytes = 256 * tlog.HashSize
	maxBundleBytes   = 256 * (translog.MaxEntryBytes + 2)
)

// tiles is a reader of p's log for one poll, counting its requests in n:
// the hash tiles of level 1 and up are derived from kept (the pin's) where
// they can be, and the read stops after the bundle that reaches maxBytes
// (0: no bound).
func (s *Source) tiles(ctx context.Context, p source.Peer, n *int, kept map[tlog.Tile][]byte, maxBytes int64) *logtiles.Reader {
	return logtiles.NewReader(ctx, s.getter(p, n), logtiles.Options{MaxHashTile: maxHashTileBytes, MaxBundle: maxBundleBytes, Kept: kept, MaxBytes: maxBytes})
}

// alarmOf turns a failure to verify the tree of checkpoint body into an
// alarm (a fork, altered bytes), or into the poll's error when the log
// could not be fetched: logtiles judges which.
func alarmOf(pin *logpin.Pin, r *logtiles.Reader, body []byte, err error) (*logpin.Alarm, error) {
	rf := r.Judge(err)
	switch {
	case rf == nil:
		return nil, fmt.Errorf("read log: %w", err)
	case rf.Kind == logtiles.Fork:
		return forkAlarm(pin, body, rf.Error()), nil
	}
	bundle := rf.Kind == logtiles.AlteredBundle
	kind := logpin.AlarmAlteredTile
	if bundle {
		kind = logpin.AlarmAlteredEntry
	}
	return &logpin.Alarm{Kind: kind, Detail: rf.Error(), Checkpoints: []string{string(body)}, Files: evidence(r, bundle)}, nil
}

// evidence names every file r fetched that is a bundle (or, bundles
// false, a hash tile).
func evidence(r *logtiles.Reader, bundles bool) []logpin.Evidence {
	var out []logpin.Evidence
	for path, raw := range r.Served() {
		if isBundle(path) == bundles {
			out = append(out, logpin.Evidence{Path: path, SHA256: manifest.HashBytes(raw)})
		}
	}
	sortEvidence(out)
	return out
}
