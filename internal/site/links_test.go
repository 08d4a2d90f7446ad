package site

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var linkRE = regexp.MustCompile(`(?i)\s(?:href|src)="([^"]*)"`)

// brokenLinks lists every relative link of every HTML page of out that
// does not lead to a file of the site.
func brokenLinks(t testing.TB, out string) []string {
	t.Helper()
	var broken []string
	for _, f := range siteFiles(t, out) {
		if path.Ext(f) != ".html" || f == "404.html" {
			continue
		}
		page, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(string(page), -1) {
			href := strings.ReplaceAll(m[1], "&amp;", "&")
			u, err := url.Parse(href)
			if err != nil {
				broken = append(broken, f+": unparsable link "+href)
				continue
			}
			if u.Scheme != "" || u.Host != "" || u.Path == "" {
				continue // external, or a fragment of this page
			}
			if strings.HasPrefix(u.Path, "/") {
				broken = append(broken, f+": root-absolute link breaks under /REPO/: "+href)
				continue
			}
			target := path.Join(path.Dir(f), u.Path)
			if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(target))); err != nil {
				broken = append(broken, f+": broken link "+href)
			}
		}
	}
	return broken
}
