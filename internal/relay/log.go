package relay

import (
	"fmt"

	"golang.org/x/mod/sumdb/note"

	"github.com/meshnode/meshnode/internal/translog"
)

// Log is a relay's own log as published: its entries, in order.
type Log struct {
	Entries []Entry
	raw     [][]byte
	size    int64
	root    string // the published checkpoint, "" for a new log
}

// OpenLog reads the relay log in files (by path under log/, as
// node.ReadLog gives them) with the relay's verifier key: the checkpoint
// must verify and the entry bundles hash to its root. No checkpoint is an
// empty log.
func OpenLog(files map[string][]byte, vkey string) (*Log, error) {
	msg, ok := files[translog.CheckpointFile]
	if !ok {
		return &Log{}, nil
	}
	cp, err := translog.Open(msg, vkey)
	if err != nil {
		return nil, fmt.Errorf("relay log: %w", err)
	}
	raw, err := translog.EntriesOf(files, cp.Size)
	if err != nil {
		return nil, fmt.Errorf("relay log: %w", err)
	}
	var tree translog.Tree
	l := &Log{size: cp.Size, root: string(msg)}
	for i, b := range raw {
		e, err := ParseEntry(b)
		if err != nil {
			return nil, fmt.Errorf("relay log entry %d: %w", i, err)
		}
		if err := tree.Append(b); err != nil {
			return nil, err
		}
		l.Entries, l.raw = append(l.Entries, e), append(l.raw, b)
	}
	root, err := tree.Root(cp.Size)
	if err != nil || root != cp.Root {
		return nil, fmt.Errorf("relay log: its entry bundles do not hash to its signed checkpoint")
	}
	return l, nil
}

// Latest returns each agent's last relayed checkpoint, by agent URL.
func (l *Log) Latest() map[string][]byte {
	out := map[string][]byte{}
	for _, e := range l.Entries {
		out[e.Agent] = e.Checkpoint
	}
	return out
}

// Extend returns the log's files (by path under log/) with add appended,
// signed with skey: every tile and bundle, and a checkpoint signed anew
// only when the log grew, so that a run that relays nothing new writes
// the same bytes.
func (l *Log) Extend(add []Entry, skey string) (map[string][]byte, error) {
	var tree translog.Tree
	for _, b := range l.raw {
		if err := tree.Append(b); err != nil {
			return nil, err
		}
	}
	for _, e := range add {
		b, err := e.Marshal()
		if err != nil {
			return nil, err
		}
		if err := tree.Append(b); err != nil {
			return nil, err
		}
		l.Entries, l.raw = append(l.Entries, e), append(l.raw, b)
	}
	files, err := tree.Tiles()
	if err != nil {
		return nil, err
	}
	if len(add) == 0 && l.root != "" {
		files[translog.CheckpointFile] = []byte(l.root)
		return files, nil
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		return nil, fmt.Errorf("relay signing key: %w", err)
	}
	root, err := tree.Root(tree.Size())
	if err != nil {
		return nil, err
	}
	cp, err := translog.Sign(translog.Checkpoint{Origin: signer.Name(), Size: tree.Size(), Root: root}, skey)
	if err != nil {
		return nil, err
	}
	files[translog.CheckpointFile] = cp
	l.size, l.root = tree.Size(), string(cp)
	return files, nil
}
