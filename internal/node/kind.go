package node

import (
	"path"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/translog"
)

// Kind is what a MANIFEST.md row publishes: a trace, a validation or a
// dispute (docs/protocol.md §2).
type Kind string

// Kinds of a row.
const (
	KindTrace      Kind = "trace"
	KindValidation Kind = "validation"
	KindDispute    Kind = "dispute"
	// KindKey is a statement of the node's signed log that changes its
	// key (docs/protocol.md §3.4), published in the log's directory: it is
	// verified like any file but never scored.
	KindKey Kind = "key"
)

// Types of the rows that are not traces, as this node writes them in the
// type column.
const (
	TypeValidation = "validation"
	TypeDispute    = "dispute"
	TypeKey        = translog.KeyStatementType
)

// KindOf says what a row publishes, ours or a peer's, by the directory
// its file lies under: validations/ holds validations, disputes/
// disputes, log/ the signed log's key statements, anything else traces. A trace of type validation (real
// agents record their verdicts that way) is a trace. A row without a file
// column (an older layout) is judged by its type, the only thing it says.
// Every reader of a row asks this, so that a node never scores a peer's
// dispute or counts a trace as a validation (docs/decisions.md, "What a
// row is").
func KindOf(e manifest.Entry) Kind {
	if e.File == "" {
		switch strings.ToLower(strings.TrimSpace(e.Type)) {
		case TypeValidation:
			return KindValidation
		case TypeDispute:
			return KindDispute
		}
		return KindTrace
	}
	top, _, _ := strings.Cut(path.Clean(strings.TrimPrefix(e.File, "/")), "/")
	switch top {
	case ValidationsDir:
		return KindValidation
	case DisputesDir:
		return KindDispute
	case LogDir:
		return KindKey
	}
	return KindTrace
}
