package translog

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/mod/sumdb/note"

	"github.com/meshnode/meshnode/internal/manifest"
)

// A key statement changes the key a log is signed with (docs/protocol.md
// §3.4, "Changing the key"). It is a C2SP signed note, published in the
// log's directory (KeyStatementPath) and listed in MANIFEST.md, so that it
// is an entry of the log itself.
const (
	// KindRotation: the old key hands the log to a new one. Signed by both;
	// a reader that holds the old key verifies it (VerifyRotation).
	KindRotation = "rotation"
	// KindRestart: the old key is lost and the log starts again under a
	// new one. Signed by the new key alone, so a reader accepts it only
	// when its operator re-pins the log (docs/decisions.md, "Losing the
	// log's key").
	KindRestart = "restart"
)

// KeyStatementDir is the directory, under the log's, of its key
// statements; KeyStatementType is their rows' type in MANIFEST.md.
const (
	KeyStatementDir  = "key"
	KeyStatementType = "key"
)

// MaxKeyStatementBytes bounds a signed key statement: five short lines
// and two signatures take about 500 bytes.
const MaxKeyStatementBytes = 4096

// statementHeader starts a key statement's text, so that no checkpoint
// or other note can be taken for one.
const statementHeader = "meshnode log key "

// keyStatementKeys are a statement's lines after its header, in their one
// order.
var keyStatementKeys = []string{"origin", "previous", "key", "size"}

// KeyStatement says that from Size on the log of Origin is signed with Key
// instead of Previous. Size is the tree size of the first checkpoint under
// Key: the statement is its last entry (entry Size-1).
type KeyStatement struct {
	Kind     string // KindRotation or KindRestart
	Origin   string
	Previous string // verifier key: the key the log was signed with
	Key      string // verifier key: the key it is signed with from Size on
	Size     int64
}

// KeyStatementPath is the path, under the log's directory, of the
// statement whose first checkpoint has size: key/rotation-42.
func KeyStatementPath(kind string, size int64) string {
	return fmt.Sprintf("%s/%s-%d", KeyStatementDir, kind, size)
}

// Marshal returns the statement's text, the body of its signed note:
//
//	meshnode log key rotation
//	origin ada.example/mesh
//	previous ada.example/mesh+<hash>+<key>
//	key ada.example/mesh+<hash>+<key>
//	size 42
func (k KeyStatement) Marshal() ([]byte, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(statementHeader + k.Kind + "\n")
	for i, v := range []string{k.Origin, k.Previous, k.Key, strconv.FormatInt(k.Size, 10)} {
		b.WriteString(keyStatementKeys[i] + " " + v + "\n")
	}
	return b.Bytes(), nil
}

// check refuses a statement no reader could follow.
func (k KeyStatement) check() error {
	if k.Kind != KindRotation && k.Kind != KindRestart {
		return fmt.Errorf("key statement: kind %q is neither %s nor %s", k.Kind, KindRotation, KindRestart)
	}
	if k.Origin == "" || strings.ContainsFunc(k.Origin, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r == '+' }) {
		return fmt.Errorf("key statement: origin %q is not a key name", k.Origin)
	}
	for _, v := range []string{k.Previous, k.Key} {
		if _, err := note.NewVerifier(v); err != nil {
			return fmt.Errorf("key statement: verifier key %q: %w", v, err)
		}
		if nameOf(v) != k.Origin {
			return fmt.Errorf("key statement: key %q is not named for the origin %q", v, k.Origin)
		}
	}
	if k.Previous == k.Key {
		return errors.New("key statement: the new key is the previous one")
	}
	if k.Size < 1 {
		return fmt.Errorf("key statement: size %d is not positive", k.Size)
	}
	return nil
}

// ParseKeyStatement reads a statement's text, and refuses any text
// Marshal would not write for it.
func ParseKeyStatement(text string) (KeyStatement, error) {
	if len(text) > MaxKeyStatementBytes {
		return KeyStatement{}, fmt.Errorf("key statement: %d bytes, more than %d", len(text), MaxKeyStatementBytes)
	}
	lines := strings.SplitAfter(text, "\n")
	if len(lines) != len(keyStatementKeys)+2 || lines[len(lines)-1] != "" {
		return KeyStatement{}, errors.New("key statement: not five lines each ending in a newline")
	}
	kind, ok := strings.CutPrefix(strings.TrimSuffix(lines[0], "\n"), statementHeader)
	if !ok {
		return KeyStatement{}, fmt.Errorf("key statement: first line is not %q and a kind", statementHeader)
	}
	v := make([]string, len(keyStatementKeys))
	for i, key := range keyStatementKeys {
		rest, ok := strings.CutPrefix(lines[i+1], key+" ")
		if !ok {
			return KeyStatement{}, fmt.Errorf("key statement: line %d is not %q", i+2, key)
		}
		v[i] = strings.TrimSuffix(rest, "\n")
	}
	size, err := strconv.ParseInt(v[3], 10, 64)
	if err != nil {
		return KeyStatement{}, fmt.Errorf("key statement: size: %w", err)
	}
	k := KeyStatement{Kind: kind, Origin: v[0], Previous: v[1], Key: v[2], Size: size}
	again, err := k.Marshal()
	if err != nil {
		return KeyStatement{}, err
	}
	if string(again) != text {
		return KeyStatement{}, errors.New("key statement: not in canonical form")
	}
	return k, nil
}

// SignKeyStatement signs k as a note with each of skeys: a rotation with
// the previous key and the new one, a restart with the new one alone.
func SignKeyStatement(k KeyStatement, skeys ...string) ([]byte, error) {
	text, err := k.Marshal()
	if err != nil {
		return nil, err
	}
	want := map[string]bool{k.Key: true}
	if k.Kind == KindRotation {
		want[k.Previous] = true
	}
	if err := needKeys(want, skeys); err != nil {
		return nil, fmt.Errorf("sign %s statement: %w", k.Kind, err)
	}
	msg, err := signNote(string(text), skeys)
	if err != nil {
		return nil, fmt.Errorf("sign %s statement: %w", k.Kind, err)
	}
	return msg, nil
}

// signNote signs text as a note with each of skeys.
func signNote(text string, skeys []string) ([]byte, error) {
	signers := make([]note.Signer, len(skeys))
	for i, skey := range skeys {
		s, err := note.NewSigner(skey)
		if err != nil {
			return nil, fmt.Errorf("signing key: %w", err)
		}
		signers[i] = s
	}
	return note.Sign(&note.Note{Text: text}, signers...)
}

// needKeys checks that skeys are the signing keys of exactly the verifier
// keys of want.
func needKeys(want map[string]bool, skeys []string) error {
	seen := map[string]bool{}
	for _, skey := range skeys {
		vkey, err := VerifierKey(skey)
		if err != nil {
			return err
		}
		if !want[vkey] {
			return fmt.Errorf("signing key %s is not one the statement needs", vkey)
		}
		seen[vkey] = true
	}
	for vkey := range want {
		if !seen[vkey] {
			return fmt.Errorf("no signing key for %s", vkey)
		}
	}
	return nil
}

// openKeyStatement verifies msg with every one of vkeys and parses it as a
// statement of origin.
func openKeyStatement(msg []byte, origin string, vkeys ...string) (KeyStatement, error) {
	if len(msg) > MaxKeyStatementBytes {
		return KeyStatement{}, fmt.Errorf("key statement: %d bytes, more than %d", len(msg), MaxKeyStatementBytes)
	}
	n, err := openAll(msg, vkeys)
	if err != nil {
		return KeyStatement{}, fmt.Errorf("key statement: %w", err)
	}
	k, err := ParseKeyStatement(n.Text)
	if err != nil {
		return KeyStatement{}, err
	}
	if k.Origin != origin {
		return KeyStatement{}, fmt.Errorf("key statement: for the log %q, not %q", k.Origin, origin)
	}
	return k, nil
}

// VerifyRotation checks a rotation statement for the log of origin
// against oldVerifierKey, the key a reader has pinned: the statement must
// be signed by that key, name it as the previous key, and be signed by
// the new key it names as well. It returns the new verifier key and the
// tree size from which checkpoints are signed with it (the statement is
// entry startSize-1). A reader pins the new key only once that entry is
// in a checkpoint it verified (OpenRotated).
func VerifyRotation(oldVerifierKey string, statement []byte, origin string) (newVerifierKey string, startSize int64, err error) {
	k, err := openKeyStatement(statement, origin, oldVerifierKey)
	if err != nil {
		return "", 0, err
	}
	if k.Kind != KindRotation {
		return "", 0, fmt.Errorf("key statement: a %s, not a %s", k.Kind, KindRotation)
	}
	if k.Previous != oldVerifierKey {
		return "", 0, fmt.Errorf("key statement: rotates %s, not the pinned key %s", k.Previous, oldVerifierKey)
	}
	if _, err := openAll(statement, []string{k.Key}); err != nil {
		return "", 0, fmt.Errorf("key statement: not signed by the new key it names: %w", err)
	}
	return k.Key, k.Size, nil
}

// VerifyRotationEntry checks entry index of a log, which the reader has
// verified against a signed checkpoint, as the log's rotation away from
// oldVerifierKey: the entry is a key statement's (type key) whose hash is
// the statement's, the statement passes VerifyRotation, and its start
// size is index+1. It returns what VerifyRotation does. This is what a
// poller calls for each key entry it reads (docs/protocol.md §3.4).
func VerifyRotationEntry(oldVerifierKey string, index int64, entry, statement []byte, origin string) (newVerifierKey string, startSize int64, err error) {
	e, err := ParseEntry(entry)
	if err != nil {
		return "", 0, err
	}
	if e.Type != KeyStatementType || e.Hash != manifest.HashBytes(statement) {
		return "", 0, fmt.Errorf("entry %d: not the key statement's (type %q, hash %s)", index, e.Type, e.Hash)
	}
	newVerifierKey, startSize, err = VerifyRotation(oldVerifierKey, statement, origin)
	if err != nil {
		return "", 0, err
	}
	if startSize != index+1 {
		return "", 0, fmt.Errorf("key statement: starts at size %d, but it is entry %d, not %d", startSize, index, startSize-1)
	}
	return newVerifierKey, startSize, nil
}

// VerifyRestart checks a restart statement for the log of origin: signed
// by the new key it names. The previous key cannot sign it (it is lost),
// so nothing here proves the restart is the owner's: a reader shows it and
// waits for its operator to re-pin (docs/decisions.md, "Losing the log's
// key"), never follows it by itself.
func VerifyRestart(statement []byte, origin string) (KeyStatement, error) {
	if len(statement) > MaxKeyStatementBytes {
		return KeyStatement{}, fmt.Errorf("key statement: %d bytes, more than %d", len(statement), MaxKeyStatementBytes)
	}
	text, err := unverifiedText(statement)
	if err != nil {
		return KeyStatement{}, fmt.Errorf("key statement: %w", err)
	}
	k, err := ParseKeyStatement(text)
	if err != nil {
		return KeyStatement{}, err
	}
	if k.Kind != KindRestart {
		return KeyStatement{}, fmt.Errorf("key statement: a %s, not a %s", k.Kind, KindRestart)
	}
	return openKeyStatement(statement, origin, k.Key)
}

// unverifiedText is the text of the signed note msg, before any of its
// signatures is checked: what says which keys must have signed it.
func unverifiedText(msg []byte) (string, error) {
	_, err := note.Open(msg, note.VerifierList())
	var unverified *note.UnverifiedNoteError
	if !errors.As(err, &unverified) {
		if err == nil {
			err = errors.New("verified by no key") // unreachable: an empty list verifies nothing
		}
		return "", err
	}
	return unverified.Note.Text, nil
}

// openAll opens msg and requires a signature by each of vkeys.
func openAll(msg []byte, vkeys []string) (*note.Note, error) {
	vs := make([]note.Verifier, len(vkeys))
	for i, vkey := range vkeys {
		v, err := note.NewVerifier(vkey)
		if err != nil {
			return nil, fmt.Errorf("verifier key: %w", err)
		}
		vs[i] = v
	}
	n, err := note.Open(msg, note.VerifierList(vs...))
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if !signedBy(n, v) {
			return nil, fmt.Errorf("not signed by %s", v.Name()+"+"+fmt.Sprintf("%08x", v.KeyHash()))
		}
	}
	return n, nil
}

// signedBy reports whether n carries a verified signature of v.
func signedBy(n *note.Note, v note.Verifier) bool {
	for _, s := range n.Sigs {
		if s.Name == v.Name() && s.Hash == v.KeyHash() {
			return true
		}
	}
	return false
}

// nameOf is a verifier key's name, the text before its first '+'.
func nameOf(vkey string) string {
	name, _, _ := strings.Cut(vkey, "+")
	return name
}
