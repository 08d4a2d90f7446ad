package heartbeat

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// KeyHint is how an owner gives the node the log's signing key: the words
// the summary and `meshnode sign` use when there is none
// (docs/publishing.md, "The signed log").
const KeyHint = "set --log-key FILE, MESHNODE_LOG_KEY_FILE, or MESHNODE_LOG_KEY (the key itself, as a GitHub secret gives it) to the signing key `meshnode init` wrote outside the node (docs/publishing.md, \"The signed log\")"

// UnsignedError says why the node's log cannot be signed: no key, or a key
// that IDENTITY.md does not publish under this node's origin. The
// heartbeat publishes MANIFEST.md without the log and puts Reason in its
// summary; `meshnode sign` says it and, for a missing key only, succeeds.
type UnsignedError struct {
	NoKey  bool
	Reason string
}

func (e *UnsignedError) Error() string { return "signed log not published: " + e.Reason }

// LogUpdate is the signed log to write after MANIFEST.md: its files before
// and after, computed from the same rows.
type LogUpdate struct {
	old, files map[string][]byte
}

// PlanLog computes the signed log of the node snap opened, served at url,
// for rows (docs/protocol.md §3.4), signed with key, before anything is
// written, so that a log that cannot extend stops MANIFEST.md too. The
// heartbeat and `meshnode sign` both call it: one computation of the log.
// Without a key, or with one IDENTITY.md does not publish, the error is an
// *UnsignedError.
func PlanLog(snap *node.Snapshot, url string, rows []manifest.Entry, key string) (*LogUpdate, error) {
	if err := checkLogKey(snap.Dir, url, key); err != nil {
		return nil, err
	}
	old, err := node.ReadLog(snap.Dir)
	if err != nil {
		return nil, err
	}
	files, err := translog.Update(old, logEntries(snap, rows), key)
	if err != nil {
		return nil, fmt.Errorf("signed log: %w; nothing published (restore %s/ from git, or see docs/publishing.md, \"The signed log\")", err, node.LogDir)
	}
	return &LogUpdate{old: old, files: files}, nil
}

// Write writes the planned log into the node at dir, after MANIFEST.md,
// and reports whether a file changed; a nil update writes nothing.
func (u *LogUpdate) Write(dir string) (bool, error) {
	if u == nil {
		return false, nil
	}
	return node.WriteLog(dir, u.old, u.files)
}

// planLog is PlanLog for the heartbeat: a key problem goes to the summary
// and the log, and the heartbeat goes on without the log.
func (n *job) planLog(rows []manifest.Entry) (*LogUpdate, error) {
	u, err := PlanLog(n.snap, n.cfg.URL, rows, n.opts.LogKey)
	if unsigned, ok := errors.AsType[*UnsignedError](err); ok {
		n.sum.LogUnsigned = unsigned.Reason
		n.log.Warn("signed log not published", "reason", unsigned.Reason)
		return nil, nil
	}
	return u, err
}

// checkLogKey refuses to sign without a key, or with one that is not the
// one IDENTITY.md publishes under the origin of url: an *UnsignedError.
func checkLogKey(dir, url, key string) error {
	if key == "" {
		return &UnsignedError{NoKey: true, Reason: "no signing key: " + KeyHint}
	}
	vkey, err := translog.VerifierKey(key)
	if err != nil {
		return fmt.Errorf("log key: %w", err)
	}
	origin, err := translog.Origin(url)
	if err != nil {
		return err
	}
	identity, err := node.ReadFile(dir, node.IdentityFile, node.MaxTopFileBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", node.IdentityFile, err)
	}
	switch keys := translog.Keys(identity); {
	case !slices.Equal(keys, []string{vkey}):
		return &UnsignedError{Reason: fmt.Sprintf("the signing key's public half %s is not the one %s publishes on its %s line (%v); publish it there, through a person's review", vkey, node.IdentityFile, translog.IdentityKey, keys)}
	case nameOf(vkey) != origin:
		return &UnsignedError{Reason: fmt.Sprintf("the signing key is named %s, the node's log origin is %s (its url); make a key for this url", nameOf(vkey), origin)}
	}
	return nil
}

// nameOf is a verifier key's name, the text before its first '+'.
func nameOf(vkey string) string {
	name, _, _ := strings.Cut(vkey, "+")
	return name
}

// logEntries are the log's entries for rows, in seq order, each trace's
// with the category it declares.
func logEntries(snap *node.Snapshot, rows []manifest.Entry) []translog.Entry {
	rows = bySeq(rows)
	out := make([]translog.Entry, len(rows))
	for i, r := range rows {
		category := ""
		if node.KindOf(r) == node.KindTrace {
			if t, err := snap.Trace(r.File); err == nil {
				category = t.Category
			}
		}
		out[i] = translog.EntryOf(r, category)
	}
	return out
}

// bySeq is rows in seq order. MANIFEST.md and each archive page list
// their rows newest first, the pages oldest first: runs of falling seqs.
// Reversing each run puts them in order in one pass, and when the seqs
// then rise strictly that order is the one sorting gives; rows in any
// other order are sorted, as they are given.
func bySeq(rows []manifest.Entry) []manifest.Entry {
	out := slices.Clone(rows)
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && out[j].Seq < out[j-1].Seq {
			j++
		}
		slices.Reverse(out[i:j])
		i = j
	}
	if risingSeqs(out) {
		return out
	}
	out = slices.Clone(rows)
	slices.SortFunc(out, func(a, b manifest.Entry) int { return int(a.Seq - b.Seq) })
	return out
}

// risingSeqs reports whether each row's seq is above the one before.
func risingSeqs(rows []manifest.Entry) bool {
	for i := 1; i < len(rows); i++ {
		if rows[i].Seq <= rows[i-1].Seq {
			return false
		}
	}
	return true
}
