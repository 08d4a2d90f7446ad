package queue

import (
	"errors"
	"fmt"

	"github.com/meshnode/meshnode/internal/manifest"
)

// ErrIDTaken is why an item whose ID is empty or names another trace is
// refused.
var ErrIDTaken = errors.New("id is empty or already holds another trace")

// ItemError is one item a store refused while it kept the others of the
// same Enqueue: an ID that is empty or holds another trace, or a value the
// store cannot hold. One bad item never costs the rest, nor the heartbeat:
// the caller reports it and goes on.
type ItemError struct {
	ID   string
	Hash manifest.Hash
	Err  error
}

// Error names the item and why it was refused.
func (e *ItemError) Error() string {
	return fmt.Sprintf("queue %s (id %q): %v", e.Hash, e.ID, e.Err)
}

// Unwrap returns the cause.
func (e *ItemError) Unwrap() error { return e.Err }

// ItemErrors returns the items err refused, when err is nil, an
// *ItemError, or errors joined of nothing else; ok is false when err holds
// any other failure, which the caller must treat as the store's own.
func ItemErrors(err error) (refused []*ItemError, ok bool) {
	switch e := err.(type) {
	case nil:
		return nil, true
	case *ItemError:
		return []*ItemError{e}, true
	case interface{ Unwrap() []error }:
		for _, one := range e.Unwrap() {
			more, ok := ItemErrors(one)
			if !ok {
				return nil, false
			}
			refused = append(refused, more...)
		}
		return refused, true
	}
	return nil, false
}
