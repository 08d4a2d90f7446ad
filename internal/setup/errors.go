package setup

import (
	"fmt"
	"strings"
)

// MissingError is a value Init needs and could neither derive nor ask for.
type MissingError struct {
	Flag string // "--agent" or "--url"
	Why  string
}

// Error names the flag and why it is needed.
func (e *MissingError) Error() string { return fmt.Sprintf("missing %s: %s", e.Flag, e.Why) }

// ValueError is a value given or answered for a flag that cannot be used.
type ValueError struct {
	Flag string
	Err  error
}

// Error names the flag, then what is wrong with the value.
func (e *ValueError) Error() string { return e.Flag + ": " + e.Err.Error() }

// Unwrap returns what is wrong with the value.
func (e *ValueError) Unwrap() error { return e.Err }

// ExistsError lists the node files that exist and would be overwritten.
type ExistsError struct {
	Dir   string
	Files []string
}

// Error names the files and the flag that would overwrite them.
func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already holds %s; not overwriting without --force", e.Dir, strings.Join(e.Files, ", "))
}

// FoundersError is a FOUNDERS.md that names other founders, which
// founding a mesh on a set-up node would replace: the declaration of the
// mesh the node joined.
type FoundersError struct {
	Dir      string
	Founders string // the founders it names, comma-separated
}

// Error names the founders the file declares.
func (e *FoundersError) Error() string {
	return fmt.Sprintf("%s already holds a FOUNDERS.md naming %s, the founders of the mesh this node is in; not replacing it without --force", e.Dir, e.Founders)
}
