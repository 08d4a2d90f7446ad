// Package integritytest serves the files every caller of
// internal/integrity is tested with, so that their tests hold them to one
// verdict per file.
package integritytest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/meshnode/meshnode/internal/integrity"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// Case is one entry of a peer, with the refusal every caller must end with.
type Case struct {
	Name string
	// File is the entry's file: a path under the peer's base URL, or an
	// absolute URL.
	File string
	Hash manifest.Hash
	Want integrity.Kind // "" when the file verifies
}

// Good is the body of the file that verifies: a trace every scorer reads.
const Good = "# A good trace\n\n## Work\n\nMeasured the loopback mesh twice.\n"

// Peer serves the cases' files; it returns the peer's base URL (under
// /agent/) and the cases. Limits are node.MaxFileBytes.
func Peer(t testing.TB) (base string, cases []Case) {
	big := bytes.Repeat([]byte("x"), node.MaxFileBytes+1)
	files := map[string][]byte{
		"/agent/traces/good.md":    []byte(Good),
		"/agent/traces/altered.md": []byte("# Altered after publication\n"),
		"/agent/traces/big.md":     big,
		"/elsewhere/x.md":          []byte(Good),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/agent/traces/moved.md" {
			http.Redirect(w, r, "/elsewhere/x.md", http.StatusFound)
			return
		}
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	good := manifest.HashBytes([]byte(Good))
	return srv.URL + "/agent/", []Case{
		{"verifies", "traces/good.md", good, ""},
		{"absolute URL under the base verifies", srv.URL + "/agent/traces/good.md", good, ""},
		{"bytes altered after publication", "traces/altered.md", manifest.HashBytes([]byte("# As published\n")), integrity.KindHash},
		{"larger than the cap", "traces/big.md", manifest.HashBytes(big), integrity.KindSize},
		{"missing", "traces/missing.md", good, integrity.KindUnavailable},
		{"path leaves the base", "../elsewhere/x.md", good, integrity.KindPath},
		{"encoded dot-dot", "traces/%2e%2e/%2e%2e/elsewhere/x.md", good, integrity.KindPath},
		{"another host", "http://other.invalid/agent/traces/good.md", good, integrity.KindPath},
		{"query in the path", "traces/good.md?raw=1", good, integrity.KindPath},
		{"redirect off the base", "traces/moved.md", good, integrity.KindPath},
	}
}
