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

// keyHint is how an owner gives the heartbeat the log's signing key: the
// words the summary uses when there is none (docs/publishing.md, "The
// signed log").
const keyHint = "set --log-key FILE or MESHNODE_LOG_KEY_FILE to the signing key `meshnode init` wrote outside the node (docs/publishing.md, \"The signed log\")"

// logUpdate is the signed log to write after MANIFEST.md: its files before
// and after, computed from the same rows.
type logUpdate struct {
	old, files map[string][]byte
}

// planLog computes the node's signed log for rows (docs/protocol.md
// §3.4), before anything is written, so that a log that cannot extend
// stops MANIFEST.md too. Without a key, or with one IDENTITY.md does not
// publish, it returns nil and says why in the summary.
func (n *job) planLog(rows []manifest.Entry) (*logUpdate, error) {
	why, err := n.logKeyProblem()
	if err != nil {
		return nil, err
	}
	if why != "" {
		n.sum.LogUnsigned = why
		n.log.Warn("signed log not published", "reason", why)
		return nil, nil
	}
	old, err := node.ReadLog(n.snap.Dir)
	if err != nil {
		return nil, err
	}
	files, err := translog.Update(old, n.logEntries(rows), n.opts.LogKey)
	if err != nil {
		return nil, fmt.Errorf("signed log: %w; nothing published (restore %s/ from git, or see docs/publishing.md, \"The signed log\")", err, node.LogDir)
	}
	return &logUpdate{old: old, files: files}, nil
}

// logKeyProblem says why the heartbeat cannot sign: no key, or a key that
// is not the one IDENTITY.md publishes under this node's origin.
func (n *job) logKeyProblem() (string, error) {
	if n.opts.LogKey == "" {
		return "no signing key: " + keyHint, nil
	}
	vkey, err := translog.VerifierKey(n.opts.LogKey)
	if err != nil {
		return "", fmt.Errorf("log key: %w", err)
	}
	origin, err := translog.Origin(n.cfg.URL)
	if err != nil {
		return "", err
	}
	identity, err := node.ReadFile(n.snap.Dir, node.IdentityFile, node.MaxTopFileBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", node.IdentityFile, err)
	}
	switch keys := translog.Keys(identity); {
	case !slices.Equal(keys, []string{vkey}):
		return fmt.Sprintf("the signing key's public half %s is not the one %s publishes on its %s line (%v); publish it there, through a person's review", vkey, node.IdentityFile, translog.IdentityKey, keys), nil
	case nameOf(vkey) != origin:
		return fmt.Sprintf("the signing key is named %s, the node's log origin is %s (its url); make a key for this url", nameOf(vkey), origin), nil
	}
	return "", nil
}

// nameOf is a verifier key's name, the text before its first '+'.
func nameOf(vkey string) string {
	name, _, _ := strings.Cut(vkey, "+")
	return name
}

// logEntries are the log's entries for rows, in seq order, each trace's
// with the category it declares.
func (n *job) logEntries(rows []manifest.Entry) []translog.Entry {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b manifest.Entry) int { return int(a.Seq - b.Seq) })
	out := make([]translog.Entry, len(rows))
	for i, r := range rows {
		category := ""
		if node.KindOf(r) == node.KindTrace {
			if t, err := n.snap.Trace(r.File); err == nil {
				category = t.Category
			}
		}
		out[i] = translog.EntryOf(r, category)
	}
	return out
}

// writeLog writes the planned log after MANIFEST.md.
func (n *job) writeLog(u *logUpdate) (bool, error) {
	if u == nil {
		return false, nil
	}
	return node.WriteLog(n.snap.Dir, u.old, u.files)
}
