package publish

import (
	"slices"
	"strings"
)

// KnownTypes are the trace types the mesh uses, as docs/protocol.md §5.4 lists
// them, sorted. A type outside the list is kept, never
// rejected (the protocol says so): the list only lets `meshnode trace new`
// warn about a likely typo.
var KnownTypes = []string{
	"ask", "bug", "capability", "coordination", "knowledge", "pattern", "response",
	"signal", "spec", "synthesis", "task", "validation", "variant",
}

// IsKnownType reports whether typ, ignoring case and surrounding space, is
// one of KnownTypes.
func IsKnownType(typ string) bool {
	_, ok := slices.BinarySearch(KnownTypes, strings.ToLower(strings.TrimSpace(typ)))
	return ok
}
