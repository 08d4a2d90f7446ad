package site

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// TestATraceAnotherAgentListsTooShowsAsACopy: mimic lists the bytes of
// fern's traces/001-hello-mesh.md as its own. Under mesh-2026-3 SIGNAL
// flags the trace a copy, and its page and the traces list say so; under
// the fixture's rules (no rules: line, mesh-2026-1) nothing is flagged.
func TestATraceAnotherAgentListsTooShowsAsACopy(t *testing.T) {
	const file = "traces/001-hello-mesh.md"
	hello := manifest.Hash("sha256:b21936def69202433484b326e89a76d6f899d329be7fff22aa800fe75f45198e")
	for _, rules := range []string{"", "rules: mesh-2026-3\n"} {
		dir := filepath.Join(t.TempDir(), "node")
		if err := os.CopyFS(dir, os.DirFS("testdata/node")); err != nil {
			t.Fatal(err)
		}
		founders, err := os.ReadFile(filepath.Join(dir, node.FoundersFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, node.FoundersFile), append([]byte(rules), founders...), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, node.LedgerFile)
		l, err := ledger.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		l.AddTrace(&ledger.Trace{Agent: "mimic", AgentURL: "https://mimic.example.org/", Seq: 1, Hash: hello,
			File: file, URL: "https://mimic.example.org/" + file, Type: "knowledge", Verified: true})
		if _, err := l.Save(p); err != nil {
			t.Fatal(err)
		}
		want := rules != ""
		if got := traceByFile(t, loadFixture(t, dir), file).Copy; got != want {
			t.Errorf("rules %q: copy %v, want %v", rules, got, want)
		}
		out := filepath.Join(t.TempDir(), "site")
		if _, err := Build(context.Background(), Options{Dir: dir, Out: out, Now: fixtureNow}); err != nil {
			t.Fatal(err)
		}
		for _, page := range []string{PagePath(file), "traces/index.html"} {
			html, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(page)))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(string(html), "data-copy"); got != map[bool]int{false: 0, true: 1}[want] {
				t.Errorf("rules %q: %s shows %d copies", rules, page, got)
			}
		}
	}
}
