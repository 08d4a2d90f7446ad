package score

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

// Scorer kinds accepted by New (mesh.yaml "scorer").
const (
	KindHeuristic = "heuristic"
	KindCommand   = "command"
	KindManual    = "manual"
)

// DefaultCommandTimeout bounds a scoring command when none is configured:
// long enough for a model call, short enough that one stuck scorer cannot
// hold a heartbeat (docs/protocol.md §1 runs every 30 minutes).
const DefaultCommandTimeout = 2 * time.Minute

// ErrNeedsPerson is the manual scorer's answer: the item waits for a person.
var ErrNeedsPerson = errors.New("needs a person to score it")

// Input is one verified trace and what a scorer needs to judge it.
type Input struct {
	// Record is the trace as the ledger keeps it: its author and the
	// author's trace URL, its seq, hash and URL, type and submitted time
	// from its MANIFEST row.
	Record ledger.Trace
	Raw    []byte       // the exact verified bytes
	Trace  *trace.Trace // parsed metadata; nil when unreadable
	Now    time.Time
	Known  []Known // traces already seen, for uniqueness
}

// Known is a trace seen before, reduced to what uniqueness needs.
type Known struct {
	Hash        manifest.Hash
	Agent       string
	Fingerprint trace.Fingerprint // Fingerprint of its body
}

// Result is a scorer's judgement.
type Result struct {
	Scores  validation.Scores
	Reasons [validation.NumDimensions][]string // why each dimension got its score
	Notes   string                             // one line for the validation file
}

// Scorer judges traces.
type Scorer interface {
	// Name says which scorer this is, for logs and notes.
	Name() string
	// Score judges one trace. It returns ErrNeedsPerson when a person must.
	Score(ctx context.Context, in Input) (*Result, error)
}

// New returns the scorer of the given kind. command and timeout matter only
// for KindCommand; a zero timeout means DefaultCommandTimeout.
func New(kind string, command []string, timeout time.Duration) (Scorer, error) {
	switch kind {
	case KindHeuristic, "":
		return Heuristic{}, nil
	case KindManual:
		return Manual{}, nil
	case KindCommand:
		if len(command) == 0 || command[0] == "" {
			return nil, errors.New("scorer command: no program configured (scorer_command)")
		}
		if timeout <= 0 {
			timeout = DefaultCommandTimeout
		}
		return &Command{Args: append([]string(nil), command...), Timeout: timeout}, nil
	default:
		return nil, fmt.Errorf("unknown scorer %q (want heuristic, command or manual)", kind)
	}
}

// Manual is the scorer for nodes where people score: it never answers.
type Manual struct{}

// Name returns "manual".
func (Manual) Name() string { return KindManual }

// Score always returns ErrNeedsPerson.
func (Manual) Score(context.Context, Input) (*Result, error) { return nil, ErrNeedsPerson }
