package logtiles

import (
	"errors"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/translog"
)

// AlteredError is a tile or bundle that cannot be what the log signed.
type AlteredError struct {
	// Bundle says an entry bundle is at fault, not a hash tile.
	Bundle bool
	// Path is the file's path under log/, "" when tlog refused the hash
	// tiles as a whole.
	Path, Why string
}

func (e *AlteredError) Error() string {
	if e.Path == "" {
		return e.Why
	}
	return e.Path + ": " + e.Why
}

// ForkError is a signed tree that no consistency proof joins to the one
// read before.
type ForkError struct{ Err error }

func (e *ForkError) Error() string {
	return "no consistency proof joins the checkpoints: " + e.Err.Error()
}

func (e *ForkError) Unwrap() error { return e.Err }

// Altered is err as an *AlteredError when it says the log's files cannot
// be what it signed, or nil for a failure to fetch them. After tlog
// refused the tiles it tells an entry bundle that disagrees with the
// published leaf hashes from a hash tile that does not hash to the signed
// root, by fetching the level-0 hash tiles of the bundles read and
// comparing them with the bundles' leaf hashes.
func (r *Reader) Altered(err error) *AlteredError {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return nil
	}
	var ae *AlteredError
	if errors.As(err, &ae) {
		return ae
	}
	for t := range r.bundles {
		published, err := r.get(r.ctx, translog.TilePath(t), r.o.MaxHashTile)
		if err == nil && string(published) != string(r.tiles[t]) {
			return &AlteredError{Bundle: true, Path: translog.TilePath(bundleOf(t)), Why: "its entries' leaf hashes are not the published hash tile's, and the tree's root is signed"}
		}
	}
	return &AlteredError{Why: "the hash tiles do not hash to the signed root"}
}
