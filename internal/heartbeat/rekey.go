package heartbeat

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/publish"
	"github.com/meshnode/meshnode/internal/translog"
)

// KeyChange is what Rotate or Restart published: the statement, at File
// (a MANIFEST.md row, under log/), handing the log to Key from Size on.
type KeyChange struct {
	translog.KeyStatement
	File string
}

// Rotate hands the log of the node at dir from oldKey, the key
// IDENTITY.md publishes, to newKey (docs/protocol.md §3.4, "Changing the
// key"): a rotation statement both keys sign, in log/key/, listed in
// MANIFEST.md as the next row so that it is the log's next entry; the log
// extended to it with a checkpoint both keys sign; and IDENTITY.md's
// log_key set to newKey, written last. Every file the node has must be
// published already (a heartbeat runs first), so that the statement is
// the entry its size names. A run cut short is finished by running it
// again with the same keys.
func Rotate(dir string, cfg *config.Config, oldKey, newKey string, now time.Time) (*KeyChange, error) {
	if err := checkLogKey(dir, cfg.URL, oldKey); err != nil {
		return nil, err
	}
	oldV, err := translog.VerifierKey(oldKey)
	if err != nil {
		return nil, err
	}
	return rekey(dir, cfg, now, translog.KindRotation, oldV, newKey, oldKey, newKey)
}

// Restart starts the log of the node at dir again under newKey, when the
// key IDENTITY.md publishes is lost (docs/decisions.md, "Losing the log's
// key"): the same entries, so the same tree, under a checkpoint newKey
// signs; a restart statement newKey signs, listed in MANIFEST.md as the
// next row; and IDENTITY.md's log_key set to newKey. Nothing in it can
// prove it is the owner's: peers that pinned the old key refuse the log
// until their operator re-pins it.
func Restart(dir string, cfg *config.Config, newKey string, now time.Time) (*KeyChange, error) {
	identity, err := node.ReadFile(dir, node.IdentityFile, node.MaxTopFileBytes)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", node.IdentityFile, err)
	}
	keys := translog.Keys(identity)
	if len(keys) != 1 {
		return nil, fmt.Errorf("%s publishes %d %s lines, not one: there is no log key to restart from", node.IdentityFile, len(keys), translog.IdentityKey)
	}
	return rekey(dir, cfg, now, translog.KindRestart, keys[0], newKey, newKey)
}

// rekey publishes a key statement of kind from the verifier key prev to
// newKey, signed by signers, and the log under newKey.
func rekey(dir string, cfg *config.Config, now time.Time, kind, prev, newKey string, signers ...string) (*KeyChange, error) {
	newV, err := translog.VerifierKey(newKey)
	if err != nil {
		return nil, fmt.Errorf("new log key: %w", err)
	}
	origin, err := translog.Origin(cfg.URL)
	if err != nil {
		return nil, err
	}
	unlock, err := node.Lock(dir)
	if errors.Is(err, node.ErrLocked) {
		return nil, fmt.Errorf("a heartbeat holds the node's lock (%s): change the key after it", node.LockFile)
	}
	if err != nil {
		return nil, err
	}
	defer unlock()
	snap, err := node.Open(dir, node.Options{Own: true})
	if err != nil {
		return nil, err
	}
	p, err := planRekey(snap, cfg, now, translog.KeyStatement{Kind: kind, Origin: origin, Previous: prev, Key: newV}, signers)
	if err != nil {
		return nil, err
	}
	return p.change, p.write(snap, newV)
}

// rekeyPlan is a key change computed before anything is written.
type rekeyPlan struct {
	change          *KeyChange
	stmt            []byte
	res             *publish.Result
	oldLog, newLog  map[string][]byte
	statementListed bool
}

// planRekey computes the statement k (its Size filled in), the MANIFEST.md
// that lists it and the log under k.Key.
func planRekey(snap *node.Snapshot, cfg *config.Config, now time.Time, k translog.KeyStatement, signers []string) (*rekeyPlan, error) {
	rows := snap.Rows()
	p := &rekeyPlan{}
	var err error
	// A run cut short after writing MANIFEST.md left the statement as the
	// last row: the same keys sign it to the same bytes.
	for _, size := range []int64{int64(len(rows)), int64(len(rows)) + 1} {
		k.Size = size
		if k.Size < 1 {
			continue
		}
		if p.stmt, err = translog.SignKeyStatement(k, signers...); err != nil {
			return nil, err
		}
		p.change = &KeyChange{KeyStatement: k, File: path.Join(node.LogDir, translog.KeyStatementPath(k.Kind, k.Size))}
		if p.statementListed = lastRowIs(rows, p.change.File, manifest.HashBytes(p.stmt)); p.statementListed {
			break
		}
	}
	o := publish.Options{Agent: cfg.Agent, URL: cfg.URL, Now: now, Statuses: statusesOf(rows), MaxBytes: cfg.Limits.ManifestBytes}
	if !p.statementListed {
		o.Add = []manifest.Entry{{Hash: manifest.HashBytes(p.stmt), File: p.change.File, Type: node.TypeKey, Status: publish.StatusPublished, Submitted: now.UTC().Truncate(time.Second)}}
	}
	if p.res, err = publish.Plan(snap, o); err != nil {
		return nil, err
	}
	if len(p.res.NewFiles) != len(o.Add) {
		return nil, fmt.Errorf("%d files wait to be published: run a heartbeat first, so that the key statement is the log's next entry", len(p.res.NewFiles)-len(o.Add))
	}
	entries := logEntries(snap, snap.RowsWith(p.res.Manifest, p.res.Archived))
	if int64(len(entries)) != k.Size {
		return nil, fmt.Errorf("the log would hold %d entries, the statement says %d", len(entries), k.Size)
	}
	if p.oldLog, err = node.ReadLog(snap.Dir); err != nil {
		return nil, err
	}
	p.newLog, err = logUnder(p.oldLog, entries, k.Kind, signers)
	if err != nil {
		return nil, fmt.Errorf("signed log: %w; nothing published", err)
	}
	p.newLog[translog.KeyStatementPath(k.Kind, k.Size)] = p.stmt
	return p, nil
}

// logUnder is the log of entries after a key statement of kind: a
// rotation extends the published log, signed by both keys; a restart
// builds it again from the entries, its key statements kept.
func logUnder(old map[string][]byte, entries []translog.Entry, kind string, signers []string) (map[string][]byte, error) {
	if kind == translog.KindRestart {
		return translog.Update(translog.KeyStatements(old), entries, signers[0])
	}
	return translog.Update(old, entries, signers[0], signers[1:]...)
}

// write writes the plan: the statement first, then MANIFEST.md that lists
// it, then the log that holds it, then IDENTITY.md, so that every file
// written names only files already there.
func (p *rekeyPlan) write(snap *node.Snapshot, newV string) error {
	withStatement := translog.KeyStatements(p.newLog)
	for name, data := range p.oldLog {
		withStatement[name] = data
	}
	if _, err := node.WriteLog(snap.Dir, p.oldLog, withStatement); err != nil {
		return err
	}
	if _, err := snap.WriteManifest(p.res.Manifest, p.res.Archived); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if _, err := node.WriteLog(snap.Dir, withStatement, p.newLog); err != nil {
		return err
	}
	identity, err := node.ReadFile(snap.Dir, node.IdentityFile, node.MaxTopFileBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", node.IdentityFile, err)
	}
	if err := atomicfile.WriteFile(filepath.Join(snap.Dir, node.IdentityFile), translog.SetKey(identity, newV), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", node.IdentityFile, err)
	}
	return nil
}

// lastRowIs reports whether the row of highest seq is file with hash.
func lastRowIs(rows []manifest.Entry, file string, hash manifest.Hash) bool {
	var last *manifest.Entry
	for i := range rows {
		if last == nil || rows[i].Seq > last.Seq {
			last = &rows[i]
		}
	}
	return last != nil && last.File == file && last.Hash == hash
}

// statusesOf keeps the statuses the rows have: a key change publishes a
// row, it resolves nothing.
func statusesOf(rows []manifest.Entry) map[manifest.Hash]manifest.Status {
	out := map[manifest.Hash]manifest.Status{}
	for _, r := range rows {
		out[r.Hash] = r.Status
	}
	return out
}
