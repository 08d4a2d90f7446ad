package translog

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// IdentityKey is the IDENTITY.md field that publishes the node's log key,
// in signed-note verifier format (<origin>+<8 hex key hash>+<base64 of
// 0x01 and the ed25519 public key>).
const IdentityKey = "log_key"

// Origin is the log's origin, and its key's name: the node's base URL
// without scheme and final slash ("jolt37.hive37.ai/traces"), as C2SP
// checkpoint recommends.
func Origin(baseURL string) (string, error) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("log origin: %q is not an http(s) URL", baseURL)
	}
	o := strings.TrimSuffix(u.Host+u.EscapedPath(), "/")
	if strings.ContainsAny(o, "+ \t\n") {
		return "", fmt.Errorf("log origin %q: a key name holds no '+' or space", o)
	}
	return o, nil
}

// GenerateKey makes a new ed25519 key pair named origin: the signer key
// (kept secret, outside the node) and the verifier key (published in
// IDENTITY.md).
func GenerateKey(origin string) (skey, vkey string, err error) {
	return GenerateKeyFrom(rand.Reader, origin)
}

// GenerateKeyFrom is GenerateKey with the key's seed read from r: 32
// bytes of it. Only a key that must be the same every time, such as the
// demo node's, takes a reader other than crypto/rand's.
func GenerateKeyFrom(r io.Reader, origin string) (skey, vkey string, err error) {
	skey, vkey, err = note.GenerateKey(r, origin)
	if err != nil {
		return "", "", fmt.Errorf("generate log key: %w", err)
	}
	return skey, vkey, nil
}

// VerifierKey derives the verifier key of a signer key.
func VerifierKey(skey string) (string, error) {
	s, err := note.NewSigner(skey)
	if err != nil {
		return "", fmt.Errorf("signing key: %w", err)
	}
	// PRIVATE+KEY+<name>+<hash>+<base64 of 0x01 and the 32-byte seed>
	// (base64 holds '+' too: the key is all after the fourth).
	parts := strings.SplitN(skey, "+", 5)
	if len(parts) != 5 {
		return "", errors.New("signing key: malformed")
	}
	raw, err := base64.StdEncoding.DecodeString(parts[4])
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != 1 {
		return "", errors.New("signing key: not an ed25519 key")
	}
	pub := ed25519.NewKeyFromSeed(raw[1:]).Public().(ed25519.PublicKey)
	return note.NewEd25519VerifierKey(s.Name(), pub)
}

// Keys returns the verifier keys IDENTITY.md publishes on log_key
// lines, in file order: a node publishes one.
func Keys(identity []byte) []string {
	var out []string
	for _, line := range strings.Split(string(identity), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), IdentityKey+":"); ok {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// SetKey returns identity with its log_key line giving vkey: the first
// such line rewritten and any other removed, or one added at the end.
// The rest of the file is kept byte for byte.
func SetKey(identity []byte, vkey string) []byte {
	lines := strings.SplitAfter(string(identity), "\n")
	var b strings.Builder
	done := false
	for _, line := range lines {
		if _, ok := strings.CutPrefix(strings.TrimSpace(line), IdentityKey+":"); ok {
			if !done {
				b.WriteString(IdentityKey + ": " + vkey + "\n")
				done = true
			}
			continue
		}
		b.WriteString(line)
	}
	if !done {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
		b.WriteString(IdentityKey + ": " + vkey + "\n")
	}
	return []byte(b.String())
}
