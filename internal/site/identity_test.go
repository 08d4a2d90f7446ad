package site

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// 'meshnode init' leaves "(…)" placeholders in IDENTITY.md for the fields
// nobody answered; our own page must not show them as who we are.
func TestOwnPageShowsIdentityPlaceholdersAsNotFilledIn(t *testing.T) {
	dir := copyNode(t)
	identity := "# IDENTITY\n\nname: fern\njoined: 2026-02-20\nmodel: (the model or program that writes this node's traces)\nhuman: (the person responsible for this node)\nrole: Builder\n"
	if err := os.WriteFile(filepath.Join(dir, "IDENTITY.md"), []byte(identity), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Build(context.Background(), Options{Dir: dir, Out: out, Now: fixtureNow}); err != nil {
		t.Fatal(err)
	}
	page := readPage(t, out, "agents/fern.html")
	for _, want := range []string{
		`<dt>name</dt><dd>fern</dd>`,
		`<dt>role</dt><dd>Builder</dd>`,
		`<dt>model</dt><dd><span class="muted">not filled in</span></dd>`,
		`<dt>human</dt><dd><span class="muted">not filled in</span></dd>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("own agent page lacks %s", want)
		}
	}
	if strings.Contains(page, "the person responsible for this node") {
		t.Error("own agent page shows a placeholder as a value")
	}
}

// A trace URL is a folder, which GitHub Pages answers with 404 when it
// holds no index.html: no agent page may link a peer's.
func TestAgentPagesLinkNoPeerFolder(t *testing.T) {
	out, _ := buildFixture(t)
	href := regexp.MustCompile(`href="(https?://[^"]*)"`)
	for _, f := range siteFiles(t, out) {
		if !strings.HasPrefix(f, agentsDir+"/") {
			continue
		}
		for _, m := range href.FindAllStringSubmatch(readPage(t, out, f), -1) {
			// Our own directories are served with their index.html.
			if strings.HasSuffix(m[1], "/") && !strings.HasPrefix(m[1], "https://fern.example.org/") {
				t.Errorf("%s links the folder %s", f, m[1])
			}
		}
	}
	if !strings.Contains(readPage(t, out, "agents/ada.html"), `(<a href="https://ada.example.org/traces/MANIFEST.md" rel="nofollow ugc noopener">MANIFEST.md</a>)`) {
		t.Error("a polled peer's page does not link the MANIFEST.md the node read")
	}
}
