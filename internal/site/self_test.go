package site

import (
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// TestOurValidationIsOursInAnySpellingOfOurURL: isSelf compared a
// validator URL with ours exactly, so a validation of ours a peer's roster
// names by another name, read back under another spelling of our URL (a
// host in upper case, no final slash), was listed a second time among the
// votes, beside the one our own files give. Our URL is now compared as
// sameClaim compares it (signal.SameURL).
func TestOurValidationIsOursInAnySpellingOfOurURL(t *testing.T) {
	const ours = "https://fern.example.org/mesh/"
	for _, tc := range []struct {
		name, nodeURL, validatorURL string
		ours                        bool
	}{
		{"our URL", ours, ours, true},
		{"without its final slash", ours, "https://fern.example.org/mesh", true},
		{"its host in upper case", ours, "https://FERN.Example.org/mesh/", true},
		{"ours spelled in upper case without a slash in mesh.yaml", "https://FERN.example.org/mesh", ours, true},
		{"another host", ours, "https://fern.example.net/mesh/", false},
		{"another path", ours, "https://fern.example.org/mesh/other/", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := ledger.New()
			l.AddValidation(&ledger.Validation{Validator: "fern-of-old", ValidatorURL: tc.validatorURL,
				TraceHash: manifest.HashBytes([]byte("gamma's trace")), Result: "pass",
				ValidatedAt: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
				SourceHash:  manifest.HashBytes([]byte("the validation file"))})
			n := &Node{Agent: "fern", URL: tc.nodeURL}
			attachLedger(n, l, &copies.Copies{})
			want := 1
			if tc.ours {
				want = 0 // our own files are the truth for what we gave
			}
			if len(n.Votes) != want {
				t.Errorf("%d votes listed, want %d: %+v", len(n.Votes), want, n.Votes)
			}
		})
	}
}
