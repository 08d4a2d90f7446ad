package site

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	fragmentRE = regexp.MustCompile(`href="#([^"]+)"`)
	idRE       = regexp.MustCompile(` id="([^"]+)"`)
)

// TestJumpLinksNameSectionsOfTheirPage checks every in-page link of every
// page of the fixture, and that the pages that run long on a phone (an
// agent's, the validations, the standings) open with jump links.
func TestJumpLinksNameSectionsOfTheirPage(t *testing.T) {
	out, _ := buildFixture(t)
	for _, f := range siteFiles(t, out) {
		if filepath.Ext(f) != ".html" {
			continue
		}
		page := readPage(t, out, f)
		ids := map[string]bool{}
		for _, m := range idRE.FindAllStringSubmatch(page, -1) {
			ids[m[1]] = true
		}
		for _, m := range fragmentRE.FindAllStringSubmatch(page, -1) {
			if !ids[m[1]] {
				t.Errorf("%s: link to #%s, which no element of the page has", f, m[1])
			}
		}
	}
	for _, f := range []string{"agents/ada.html", "agents/fern.html", "validations.html", "signal.html"} {
		if !strings.Contains(readPage(t, out, f), `<nav class="jump" aria-label="on this page">`) {
			t.Errorf("%s opens with no jump links", f)
		}
	}
}
