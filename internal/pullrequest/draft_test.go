package pullrequest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/validation"
)

func sampleSuggestion() Suggestion {
	v := validation.Validation{
		Validator: "ada", ValidatorURL: "https://ada.github.io/node/",
		TraceURL:    "https://peer.example/traces/knowledge-x.md",
		TraceHash:   manifest.Hash("sha256:" + strings.Repeat("ab", 32)),
		ValidatedAt: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Scores:      validation.Scores{4, 3, 4, 2, 4, 3}, HasScores: true,
		Notes: "Solid, specific; evidence thin.",
	}
	v.Total = v.Scores.Total()
	v.Result = validation.ResultFor(v.Total)
	return Suggestion{
		Validation: v,
		Reasons: map[string][]string{
			"substance":     {"412 words of work", "two code blocks"},
			"actionability": {"no steps --> a reader cannot act", "key: value at column 0\nwould be a field"},
		},
		Title: "Knowledge X", Agent: "peer",
	}
}

func TestNewDraftIsGolden(t *testing.T) {
	d := NewDraft(sampleSuggestion())
	if d.Path != "validations/val-abababababab.md" || d.Suggestion != "20/30 pass" {
		t.Errorf("draft = %q, %q", d.Path, d.Suggestion)
	}
	golden(t, "draft.md", d.Content)
}

func TestNewDraftParsesAsTheCanonicalValidation(t *testing.T) {
	s := sampleSuggestion()
	d := NewDraft(s)
	got, err := validation.Parse(d.Content)
	if err != nil {
		t.Fatal(err)
	}
	want, err := validation.Parse(s.Validation.Format())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the draft block changed what Parse reads:\ngot  %+v\nwant %+v", got, want)
	}
	if problems := got.Check(); len(problems) > 0 {
		t.Errorf("draft is inconsistent: %v", problems)
	}
}

func TestNewDraftIsDeterministicAndCommentCannotEndEarly(t *testing.T) {
	a, b := NewDraft(sampleSuggestion()), NewDraft(sampleSuggestion())
	if !bytes.Equal(a.Content, b.Content) {
		t.Error("two drafts of one suggestion differ")
	}
	body := string(a.Content)
	start := strings.Index(body, DraftBlockStart)
	if start < 0 || strings.Count(body[start:], "-->") != 1 || !strings.HasSuffix(body, "-->\n") {
		t.Errorf("draft block is not one comment to the end of the file:\n%s", body)
	}
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update and review the diff)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}
