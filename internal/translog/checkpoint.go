package translog

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// MaxCheckpointBytes bounds a signed checkpoint: three lines and a few
// signatures take under 1 KiB.
const MaxCheckpointBytes = 16 << 10

// Checkpoint is a log's size and root, under its origin (C2SP
// checkpoint). It carries no time, so an unchanged log signs to the same
// bytes.
type Checkpoint struct {
	Origin string
	Size   int64
	Root   tlog.Hash
}

// Marshal returns the checkpoint's body: the origin, the size in decimal
// and the root hash in standard base64, a line each.
func (c Checkpoint) Marshal() []byte {
	return fmt.Appendf(nil, "%s\n%d\n%s\n", c.Origin, c.Size, base64.StdEncoding.EncodeToString(c.Root[:]))
}

// ParseCheckpoint reads a checkpoint's body; extension lines after the
// third are allowed and ignored (C2SP checkpoint).
func ParseCheckpoint(text string) (Checkpoint, error) {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) < 4 {
		return Checkpoint{}, errors.New("checkpoint: fewer than three lines")
	}
	var c Checkpoint
	c.Origin = strings.TrimSuffix(lines[0], "\n")
	if c.Origin == "" {
		return Checkpoint{}, errors.New("checkpoint: empty origin")
	}
	size := strings.TrimSuffix(lines[1], "\n")
	n, err := strconv.ParseInt(size, 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != size {
		return Checkpoint{}, fmt.Errorf("checkpoint: size %q is not a decimal count", size)
	}
	c.Size = n
	root, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(lines[2], "\n"))
	if err != nil || len(root) != tlog.HashSize {
		return Checkpoint{}, errors.New("checkpoint: root is not a base64 SHA-256 hash")
	}
	copy(c.Root[:], root)
	return c, nil
}

// Sign signs c as a note with each of skeys (two at a key rotation's
// checkpoint, docs/protocol.md §3.4); every key must be named c's origin.
func Sign(c Checkpoint, skeys ...string) ([]byte, error) {
	if len(skeys) == 0 {
		return nil, errors.New("sign checkpoint: no signing key")
	}
	signers := make([]note.Signer, len(skeys))
	for i, skey := range skeys {
		s, err := note.NewSigner(skey)
		if err != nil {
			return nil, fmt.Errorf("signing key: %w", err)
		}
		if s.Name() != c.Origin {
			return nil, fmt.Errorf("signing key is named %q, the log's origin is %q", s.Name(), c.Origin)
		}
		signers[i] = s
	}
	msg, err := note.Sign(&note.Note{Text: string(c.Marshal())}, signers...)
	if err != nil {
		return nil, fmt.Errorf("sign checkpoint: %w", err)
	}
	return msg, nil
}

// Open verifies a signed checkpoint with vkey and returns it; its origin
// must be the key's name.
func Open(msg []byte, vkey string) (Checkpoint, error) {
	if len(msg) > MaxCheckpointBytes {
		return Checkpoint{}, fmt.Errorf("checkpoint: %d bytes, more than %d", len(msg), MaxCheckpointBytes)
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("verifier key: %w", err)
	}
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	c, err := ParseCheckpoint(n.Text)
	if err != nil {
		return Checkpoint{}, err
	}
	if c.Origin != v.Name() {
		return Checkpoint{}, fmt.Errorf("checkpoint: origin %q is not the key's name %q", c.Origin, v.Name())
	}
	return c, nil
}

// OpenRotated verifies a signed checkpoint of a log whose key rotated
// from oldKey to newKey at startSize (VerifyRotation): a checkpoint
// smaller than startSize must be signed by oldKey, the one of startSize by
// both, and a larger one by newKey. A checkpoint past the rotation that
// only the old key signed is refused: whoever still holds the old key no
// longer speaks for the log.
func OpenRotated(msg []byte, oldKey, newKey string, startSize int64) (Checkpoint, error) {
	if len(msg) > MaxCheckpointBytes {
		return Checkpoint{}, fmt.Errorf("checkpoint: %d bytes, more than %d", len(msg), MaxCheckpointBytes)
	}
	text, err := unverifiedText(msg)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	c, err := ParseCheckpoint(text)
	if err != nil {
		return Checkpoint{}, err
	}
	var need []string
	switch {
	case c.Size < startSize:
		need = []string{oldKey}
	case c.Size == startSize:
		need = []string{oldKey, newKey}
	default:
		need = []string{newKey}
	}
	if _, err := openAll(msg, need); err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint of size %d, key rotated at %d: %w", c.Size, startSize, err)
	}
	if c.Origin != nameOf(newKey) {
		return Checkpoint{}, fmt.Errorf("checkpoint: origin %q is not the key's name %q", c.Origin, nameOf(newKey))
	}
	return c, nil
}
