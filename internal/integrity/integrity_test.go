package integrity_test

import (
	"context"
	"errors"
	"testing"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/integrity"
	"github.com/meshnode/meshnode/internal/integrity/integritytest"
	"github.com/meshnode/meshnode/internal/manifest"
)

func getter(c *fetch.Client, base string) integrity.Getter {
	return func(ctx context.Context, u string, max int64) ([]byte, error) {
		resp, err := c.Get(ctx, fetch.Request{URL: u, MaxBytes: max, Within: base})
		if err != nil {
			return nil, err
		}
		return resp.Body, nil
	}
}

func TestFetchEndsEachCaseWithItsKind(t *testing.T) {
	base, cases := integritytest.Peer(t)
	v := integrity.Verifier{Get: getter(fetch.New(fetch.Options{AllowPrivate: true, IgnoreRobots: true}), base)}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			f, err := v.Fetch(context.Background(), integrity.Claim{Base: base, File: c.File, Hash: c.Hash})
			if k := integrity.KindOf(err); k != c.Want {
				t.Fatalf("kind %q (%v), want %q", k, err, c.Want)
			}
			if err == nil && string(f.Body) != integritytest.Good {
				t.Errorf("body %q", f.Body)
			}
		})
	}
}

type refuseAll struct{}

func (refuseAll) Attest(integrity.Claim, []byte) error { return errors.New("no signature") }

func TestCheckAppliesSizeHashAndAttestationInOrder(t *testing.T) {
	body := []byte("# T\n")
	good := integrity.Claim{Hash: manifest.HashBytes(body)}
	cases := []struct {
		name string
		v    integrity.Verifier
		c    integrity.Claim
		want integrity.Kind
	}{
		{"verifies", integrity.Verifier{}, good, ""},
		{"over the cap", integrity.Verifier{}, integrity.Claim{Hash: good.Hash, MaxBytes: 3}, integrity.KindSize},
		{"other bytes", integrity.Verifier{}, integrity.Claim{Hash: manifest.HashBytes([]byte("x"))}, integrity.KindHash},
		{"attester refuses", integrity.Verifier{Attest: refuseAll{}}, good, integrity.KindAttestation},
		{"hash before attestation", integrity.Verifier{Attest: refuseAll{}}, integrity.Claim{Hash: manifest.HashBytes([]byte("x"))}, integrity.KindHash},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.v.Check(c.c, "traces/t.md", body)
			if k := integrity.KindOf(err); k != c.want {
				t.Errorf("kind %q (%v), want %q", k, err, c.want)
			}
		})
	}
}
