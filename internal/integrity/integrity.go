package integrity

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// Kind names why a file was refused, so that every caller branches the
// same way.
type Kind string

// The kinds of refusal.
const (
	// KindPath: the file's path, or a redirect, leaves the peer's base URL
	// (fetch.ResolveWithin's rule). Asking again cannot change it.
	KindPath Kind = "path"
	// KindUnavailable: the bytes could not be read (network, status,
	// deadline); asking later may succeed.
	KindUnavailable Kind = "unavailable"
	// KindSize: the file is larger than the claim's cap (served, or in
	// hand).
	KindSize Kind = "size"
	// KindHash: the bytes do not hash to what the entry claims.
	KindHash Kind = "hash"
	// KindAttestation: the Attester refused the file.
	KindAttestation Kind = "attestation"
)

// Error is every refusal Fetch and Check return.
type Error struct {
	Kind Kind
	URL  string // the file's URL, or its path for a local file
	// Served is the hash of the bytes served, for KindHash.
	Served manifest.Hash
	// Requested is true when a request was made.
	Requested bool
	Err       error
}

// Error formats the refusal as "KIND: URL: detail".
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s: %v", e.Kind.Phrase(), e.URL, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Phrase is how an error of kind k starts, the same from every caller.
func (k Kind) Phrase() string {
	switch k {
	case KindPath:
		return "refused path"
	case KindHash:
		return "hash mismatch"
	case KindSize:
		return "too large"
	case KindAttestation:
		return "attestation refused"
	}
	return "unavailable"
}

// KindOf returns the Kind of err when it is or wraps an *Error, else "".
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// Claim is what a source of entries (MANIFEST.md today) says of one file.
type Claim struct {
	Base string        // the peer's base URL
	File string        // the file: a path under Base, or an absolute URL under it
	Hash manifest.Hash // the hash the entry lists
	// MaxBytes caps the file; node.MaxFileBytes (the size the node
	// publishes, and limits.trace_bytes's default) when ≤ 0.
	MaxBytes int64
}

func (c Claim) max() int64 {
	if c.MaxBytes <= 0 {
		return node.MaxFileBytes
	}
	return c.MaxBytes
}

// Attester checks what a hash alone cannot, such as a signature over the
// entry. A new signature scheme is an Attester, in its own package.
type Attester interface {
	Attest(c Claim, body []byte) error
}

// Getter reads one URL of the peer, at most max bytes: a fetch.Client's Get
// with the caller's request options. Its errors are fetch's.
type Getter func(ctx context.Context, url string, max int64) ([]byte, error)

// Verifier verifies files. Attest is nil while entries are unsigned.
type Verifier struct {
	Get    Getter
	Attest Attester
}

// File is a file that verified: its URL and exact bytes.
type File struct {
	URL  string
	Body []byte
}

// Locate returns the URL of c's file under its base, or a KindPath error.
// An absolute URL that starts with the base is taken relative to it.
func Locate(c Claim) (string, error) {
	file := c.File
	if rest, ok := strings.CutPrefix(file, c.Base); ok && rest != "" {
		file = rest
	}
	u, err := fetch.ResolveWithin(c.Base, file)
	if err != nil {
		return "", &Error{Kind: KindPath, URL: c.File, Err: err}
	}
	return u, nil
}

// Fetch locates c's file, reads it through v.Get and checks it: the one
// verification of a peer's file.
func (v Verifier) Fetch(ctx context.Context, c Claim) (*File, error) {
	u, err := Locate(c)
	if err != nil {
		return nil, err
	}
	body, err := v.Get(ctx, u, c.max())
	switch {
	case fetch.IsKind(err, fetch.KindRedirect), fetch.IsKind(err, fetch.KindBadURL):
		// A redirect off the peer's base URL is refused like a bad path,
		// and no more likely to change by asking again.
		return nil, &Error{Kind: KindPath, URL: u, Requested: true, Err: err}
	case fetch.IsKind(err, fetch.KindTooLarge):
		return nil, &Error{Kind: KindSize, URL: u, Requested: true, Err: err}
	case err != nil:
		return nil, &Error{Kind: KindUnavailable, URL: u, Requested: true, Err: err}
	}
	if err := v.check(c, u, body); err != nil {
		err.Requested = true
		return nil, err
	}
	return &File{URL: u, Body: body}, nil
}

// Check checks bytes in hand against c: size, hash and the attestation.
// name says where they came from, for the error.
func (v Verifier) Check(c Claim, name string, body []byte) error {
	if err := v.check(c, name, body); err != nil {
		return err
	}
	return nil
}

func (v Verifier) check(c Claim, name string, body []byte) *Error {
	if n := int64(len(body)); n > c.max() {
		return &Error{Kind: KindSize, URL: name, Err: fmt.Errorf("%d bytes, more than %d", n, c.max())}
	}
	if got := manifest.HashBytes(body); got != c.Hash {
		return &Error{Kind: KindHash, URL: name, Served: got,
			Err: fmt.Errorf("entry lists %s, the bytes hash to %s", c.Hash, got)}
	}
	if v.Attest != nil {
		if err := v.Attest.Attest(c, body); err != nil {
			return &Error{Kind: KindAttestation, URL: name, Err: err}
		}
	}
	return nil
}
