package node_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/validation"
)

// ownValidation is the file of our validation number i, of a trace of
// its own.
func ownValidation(i int) (rel string, data []byte) {
	h := manifest.HashBytes(fmt.Appendf(nil, "trace %d", i))
	v := &validation.Validation{Validator: "us", ValidatorURL: "https://us.example/", TraceURL: fmt.Sprintf("https://p.example/traces/%d.md", i),
		TraceHash: h, ValidatedAt: time.Date(2026, 3, 1, i, 0, 0, 0, time.UTC)}
	v.SetScores(validation.Scores{4, 3, 4, 3, 4, i % 5})
	return node.ValidationsDir + "/" + validation.FileName(h), v.Format()
}

// TestSignalsInputParsesEachOwnValidationOnce: a heartbeat that publishes
// gathers SIGNAL's input again after writing its validations (docs/
// decisions.md, "SIGNAL once a heartbeat"); our files are parsed once per
// snapshot, so the second gathering parses only the file written since,
// holds its record, and gives every other record as the first did, in
// records of its own.
func TestSignalsInputParsesEachOwnValidationOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, node.FoundersFile), []byte("bob | https://bob.example/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 5
	for i := range n {
		rel, data := ownValidation(i)
		if err := os.MkdirAll(filepath.Join(dir, node.ValidationsDir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parsed := map[string]int{}
	defer node.SetValidationHook(func(rel string) { parsed[rel]++ })()
	s, err := node.Open(dir, node.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := signal.FromSnapshot(s, "us", "https://us.example/")
	if err != nil || len(first.Validations) != n {
		t.Fatalf("first gathering: %d validations, %v; want %d", len(first.Validations), err, n)
	}
	second, err := signal.FromSnapshot(s, "us", "https://us.example/")
	if err != nil || !reflect.DeepEqual(first.Validations, second.Validations) {
		t.Fatalf("second gathering differs from the first (%v):\n%v\n%v", err, first.Validations, second.Validations)
	}
	rel, data := ownValidation(n)
	if err := s.WriteFile(rel, data); err != nil {
		t.Fatal(err)
	}
	third, err := signal.FromSnapshot(s, "us", "https://us.example/")
	if err != nil || len(third.Validations) != n+1 {
		t.Fatalf("after a write: %d validations, %v; want %d", len(third.Validations), err, n+1)
	}
	if !slices.ContainsFunc(third.Validations, func(v *ledger.Validation) bool {
		return v.SourceURL == "https://us.example/"+rel && v.TraceHash != "" && v.Validator == "us"
	}) {
		t.Errorf("the gathering after the write does not hold %s", rel)
	}
	for _, f := range s.Files(node.ValidationsDir) {
		if parsed[f.Path] != 1 {
			t.Errorf("%s parsed %d times, want once", f.Path, parsed[f.Path])
		}
	}
	if len(parsed) != n+1 {
		t.Errorf("%d files parsed, want %d", len(parsed), n+1)
	}
	for i, v := range first.Validations {
		if v == second.Validations[i] {
			t.Errorf("record %d is shared by two gatherings", i)
		}
	}
}

// TestAHeartbeatThatPublishesParsesEachValidationOfOursOnce: a heartbeat
// that validates a peer's trace reads our validation files for SIGNAL
// before and after it writes its own, for the rows it publishes and for
// the day's budget; each file is parsed once, the one it wrote included.
func TestAHeartbeatThatPublishesParsesEachValidationOfOursOnce(t *testing.T) {
	dir := newNode(t, servePeer(t))
	rel, data := ownValidation(0)
	if err := os.MkdirAll(filepath.Join(dir, node.ValidationsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), data, 0o644); err != nil {
		t.Fatal(err)
	}
	parsed := map[string]int{}
	defer node.SetValidationHook(func(rel string) { parsed[rel]++ })()
	if sum := beat(t, dir); sum.ValidationsPublished != 1 {
		t.Fatalf("%d validations published, want 1", sum.ValidationsPublished)
	}
	if len(parsed) != 2 {
		t.Errorf("parsed %v, want our earlier file and the one written", parsed)
	}
	for rel, n := range parsed {
		if n != 1 {
			t.Errorf("%s parsed %d times, want once", rel, n)
		}
	}
}
