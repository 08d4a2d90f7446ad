package logsource

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/mod/sumdb/note"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/source"
	"github.com/meshnode/meshnode/internal/translog"
)

// openCheckpoint opens body with the pinned key. A checkpoint signed by
// another key is returned unverified (signed false): only a rotation among
// its entries can make it acceptable (follow).
func openCheckpoint(body []byte, key string) (cp translog.Checkpoint, signed bool, err error) {
	cp, err = translog.Open(body, key)
	if err == nil {
		return cp, true, nil
	}
	var unverified *note.UnverifiedNoteError
	if !errors.As(err, &unverified) {
		return cp, false, err
	}
	cp, perr := translog.ParseCheckpoint(unverified.Note.Text)
	if perr != nil {
		return cp, false, perr
	}
	return cp, false, nil
}

// follow checks the key statements among entries (the entries of indexes
// first on, verified against the tree of checkpoint body) that the pinned
// tree of size after did not hold, and moves pin to the key they rotate to.
// It returns an alarm when the key change is not a rotation the pinned key
// signed: a checkpoint of another key without one, a statement the pinned
// key did not sign, a checkpoint whose keys do not match its size, or a
// restart (which only an operator may accept). Trust on first use: the
// key entries of the first tree read are not checked.
func (s *Source) follow(ctx context.Context, p source.Peer, n *int, pin *logpin.Pin, body []byte, signed bool, raw [][]byte, entries []manifest.Entry, first, after int64) (*logpin.Alarm, error) {
	key, prevKey, start := pin.Key, "", int64(0)
	var rotations []logpin.Rotation
	for i, e := range entries {
		index := first + int64(i)
		if after == 0 || index < after || e.Type != translog.KeyStatementType {
			continue
		}
		stmt, err := s.statement(ctx, p, n, e.File)
		if err != nil {
			return nil, err
		}
		newKey, size, err := translog.VerifyRotationEntry(key, index, raw[i], stmt, originOf(key))
		if err != nil {
			return changeAlarm(pin, body, e, stmt, key, index, err), nil
		}
		rotations = append(rotations, logpin.Rotation{Size: size, Previous: key, Key: newKey, Statement: string(stmt)})
		prevKey, key, start = key, newKey, size
	}
	if len(rotations) == 0 {
		if !signed {
			return keyChangeAlarm(pin, body, "the checkpoint bears no signature by the pinned key "+pin.Key+" and no rotation among its new entries announces another"), nil
		}
		return nil, nil
	}
	if _, err := translog.OpenRotated(body, prevKey, key, start); err != nil {
		a := keyChangeAlarm(pin, body, err.Error())
		a.Statement = rotations[len(rotations)-1].Statement
		return a, nil
	}
	pin.Key = key
	pin.Rotations = slices.Concat(pin.Rotations, rotations)
	return nil, nil
}

// changeAlarm is the alarm for key entry e (entry index, statement stmt)
// that is no rotation from key: a restart when it is one, signed by the
// new key it names, a key change otherwise.
func changeAlarm(pin *logpin.Pin, body []byte, e manifest.Entry, stmt []byte, key string, index int64, rotErr error) *logpin.Alarm {
	k, err := translog.VerifyRestart(stmt, originOf(key))
	if err != nil || k.Previous != key || k.Size != index+1 || e.Hash != manifest.HashBytes(stmt) {
		a := keyChangeAlarm(pin, body, fmt.Sprintf("entry %d (%s) is no rotation from the pinned key: %v", index, e.File, rotErr))
		a.Statement = string(stmt)
		return a
	}
	if _, err := translog.Open(body, k.Key); err != nil {
		a := keyChangeAlarm(pin, body, fmt.Sprintf("entry %d (%s) restarts the log under %s, but the checkpoint does not verify with it: %v", index, e.File, k.Key, err))
		a.Statement = string(stmt)
		return a
	}
	return &logpin.Alarm{Kind: logpin.AlarmRestart, Key: k.Key, Size: k.Size, Statement: string(stmt),
		Detail:      fmt.Sprintf("the log restarted under the key %s at size %d (%s): nothing proves the lost key's owner wrote it", k.Key, k.Size, e.File),
		Checkpoints: append(nonEmpty(pin.Checkpoint), string(body))}
}

func keyChangeAlarm(pin *logpin.Pin, body []byte, why string) *logpin.Alarm {
	return &logpin.Alarm{Kind: logpin.AlarmKeyChange, Detail: why, Checkpoints: append(nonEmpty(pin.Checkpoint), string(body))}
}

// statement fetches the key statement at file (a MANIFEST row's file
// column, under p's URL), bounded as a statement is.
func (s *Source) statement(ctx context.Context, p source.Peer, n *int, file string) ([]byte, error) {
	*n++
	resp, err := s.Client.Get(ctx, request(p, p.URL+file, translog.MaxKeyStatementBytes))
	if err != nil {
		return nil, fmt.Errorf("read key statement %s: %w", file, err)
	}
	return resp.Body, nil
}

// originOf is the log's origin a verifier key is named for.
func originOf(vkey string) string {
	origin, _, _ := strings.Cut(vkey, "+")
	return origin
}
