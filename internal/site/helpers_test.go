package site

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixtureNow is the time the fixture node is judged at.
var fixtureNow = time.Date(2026, 2, 26, 12, 0, 0, 0, time.UTC)

// buildFixture builds testdata/node into a temporary directory.
func buildFixture(t testing.TB) (string, Stats) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "site")
	st, err := Build(context.Background(), Options{Dir: "testdata/node", Out: out, Now: fixtureNow})
	if err != nil {
		t.Fatalf("build fixture: %v", err)
	}
	return out, st
}

// siteFiles lists every file of a built site, slash-separated.
func siteFiles(t testing.TB, out string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	tagRE  = regexp.MustCompile(`(?is)<([a-z][a-z0-9-]*)\b([^>]*)>`)
	attrRE = regexp.MustCompile(`(?is)([a-z_:][-a-z0-9_:.]*)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)`)
)

// executable lists what in an HTML page could run script: script-like
// elements, event handler attributes, and URLs with a scheme other than
// http, https or mailto.
func executable(page string) []string {
	var found []string
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		switch strings.ToLower(m[1]) {
		case "script", "iframe", "object", "embed", "base", "form", "meta":
			if strings.ToLower(m[1]) == "meta" && !strings.Contains(strings.ToLower(m[2]), "http-equiv") {
				continue
			}
			found = append(found, m[0])
		}
		for _, a := range attrRE.FindAllStringSubmatch(m[2], -1) {
			name := strings.ToLower(a[1])
			val := strings.Trim(a[2], `"'`)
			if strings.HasPrefix(name, "on") {
				found = append(found, m[0])
			}
			if (name == "href" || name == "src" || name == "action" || name == "xlink:href" || name == "formaction") && !safeURL(unescapeAttr(val)) {
				found = append(found, m[0])
			}
		}
	}
	return found
}

// unescapeAttr undoes the entity escapes a browser would before reading a
// URL attribute.
func unescapeAttr(s string) string {
	r := strings.NewReplacer("&amp;", "&", "&#58;", ":", "&#x3a;", ":", "&colon;", ":", "&#9;", "\t", "&#10;", "\n", "&#43;", "+", "&#34;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">")
	return r.Replace(s)
}
