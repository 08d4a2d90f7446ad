package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/publish"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/validation"
)

const (
	agent  = "ada"
	ourURL = "https://ada.example.org/mesh/"
	bobURL = "https://bob.example.org/mesh/"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Peer traces the ledger knows: verified, listed without a file (never
// verified), and rejected for a hash mismatch.
var (
	bobTrace      = manifest.HashBytes([]byte("bob's trace on gaps\n"))
	bobTraceURL   = bobURL + "traces/gaps.md"
	cydTrace      = manifest.HashBytes([]byte("cyd's rubric\n"))
	cydTraceURL   = "https://cyd.example/traces/rubric.md"
	unverified    = manifest.HashBytes([]byte("listed in an old layout\n"))
	rejected      = manifest.HashBytes([]byte("what bob claimed\n"))
	ownTraceBytes = "---\ntitle: Polling costs\ntype: knowledge\n---\n\n# Polling costs\n\n## Work\n\nMeasured.\n"
	ownTrace      = manifest.HashBytes([]byte(ownTraceBytes))
)

// validationFile writes a canonical validation of hash at url, with the
// given lines replaced ("key: value" → its line; "key:" alone deletes it).
func validationFile(hash manifest.Hash, url string, replace ...string) string {
	lines := []string{
		"# VALIDATION", "",
		"validator: ada", "validator_url: " + ourURL, "trace_url: " + url, "trace_hash: " + string(hash),
		"validated_at: 2026-03-01T11:00:00Z", "result: pass", "total_score: 20", "",
		"scores:", "  substance: 4", "  uniqueness: 3", "  specificity: 4", "  actionability: 3", "  structure: 3", "  freshness: 3", "",
		"notes: Clear and specific.",
	}
	for _, r := range replace {
		key, _, _ := strings.Cut(r, ":")
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), key+":") {
				indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
				lines[i] = indent + r
				if strings.TrimSpace(r) == key+":" {
					lines[i] = "\x00"
				}
			}
		}
	}
	out := strings.Join(lines, "\n") + "\n"
	return strings.ReplaceAll(out, "\x00\n", "")
}

// cleanNode builds a node that passes every rule: a founder of its mesh
// (so it has standing), with one published trace of its own validated by
// two others, one new trace, and one validation of bob's verified trace.
func cleanNode(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "traces/2026-03-01-polling-costs.md", ownTraceBytes)
	if _, err := publish.Publish(publish.Options{Dir: dir, Agent: agent, URL: ourURL, Now: t0}); err != nil {
		t.Fatal(err)
	}
	write(t, dir, node.FoundersFile, string(signal.FormatFounders(signal.RulesMesh2026v1, []signal.Founder{{Name: agent, URL: ourURL}})))
	write(t, dir, "traces/2026-03-02-new.md", "---\ntitle: New finding\n---\n\n# New finding\n")
	write(t, dir, "validations/"+validation.FileName(bobTrace), validationFile(bobTrace, bobTraceURL))
	l := &ledger.Ledger{
		Traces: map[manifest.Hash]*ledger.Trace{
			bobTrace:   {Agent: "bob", AgentURL: bobURL, Hash: bobTrace, File: "traces/gaps.md", URL: bobTraceURL, Verified: true},
			cydTrace:   {Agent: "cyd", AgentURL: "https://cyd.example/", Hash: cydTrace, URL: cydTraceURL, Verified: true},
			unverified: {Agent: "bob", AgentURL: bobURL, Hash: unverified},
			ownTrace:   {Agent: agent, AgentURL: ourURL, Hash: ownTrace, URL: ourURL + "traces/2026-03-01-polling-costs.md", Verified: true},
		},
		Validations: map[string]*ledger.Validation{},
		Rejected: map[string]*ledger.Rejection{
			bobURL + "traces/tampered.md": {Agent: "bob", AgentURL: bobURL, ClaimedHash: rejected, ServedHash: bobTrace},
		},
	}
	for _, v := range []ledger.Validation{
		{Validator: "bob", ValidatorURL: bobURL, TraceHash: ownTrace, Result: validation.ResultPass},
		{Validator: "cyd", ValidatorURL: "https://cyd.example/", TraceHash: ownTrace, Result: validation.ResultPass},
		{Validator: agent, ValidatorURL: ourURL, TraceHash: ownTrace, Result: validation.ResultFail},
	} {
		l.AddValidation(&v)
	}
	if err := os.MkdirAll(filepath.Join(dir, "mesh-state"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Save(filepath.Join(dir, filepath.FromSlash(node.LedgerFile))); err != nil {
		t.Fatal(err)
	}
	return dir
}

func options(dir string, files ...string) Options {
	return Options{Dir: dir, Files: files, Agent: agent, URL: ourURL}
}

func write(t testing.TB, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func lines(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

// checkPR checks, against base, a pull request made of a copy of base
// that edit changes, naming file as the one it touched, and returns the
// problems' lines.
func checkPR(t *testing.T, base, file string, edit func(pr string)) string {
	t.Helper()
	pr := filepath.Join(t.TempDir(), "pr")
	if err := os.CopyFS(pr, os.DirFS(base)); err != nil {
		t.Fatal(err)
	}
	edit(pr)
	o := options(pr, file)
	o.Base = base
	return strings.Join(lines(Check(o)), "\n")
}
