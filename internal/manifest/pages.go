package manifest

import (
	"net/url"
	"strings"
)

// PageStem stands, in a "pages:" line, for a row's file without its
// ".md": "pages: https://ada.example/{stem}.html" puts the page of
// traces/x.md at https://ada.example/traces/x.html.
const PageStem = "{stem}"

// PageURL is the page where the agent at agentURL, whose MANIFEST.md
// says "pages: <pattern>", serves the trace at file (a row's file
// column) for people; ok is false when there is none to link: a pattern
// without exactly one PageStem, a file that is not a ".md" under the
// agent's URL, or a page that is not an http or https URL on the host of
// agentURL. Knowing a page costs no request (docs/decisions.md, "Peers'
// own pages").
func PageURL(pattern, agentURL, file string) (string, bool) {
	stem, isMD := strings.CutSuffix(file, ".md")
	if strings.Count(pattern, PageStem) != 1 || !isMD || stem == "" ||
		strings.HasPrefix(stem, "/") || strings.Contains(stem, "..") || strings.ContainsAny(stem, "?#\\:") {
		return "", false
	}
	page := strings.Replace(pattern, PageStem, stem, 1)
	p, err := url.Parse(page)
	base, berr := url.Parse(agentURL)
	if err != nil || berr != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" ||
		p.User != nil || !strings.EqualFold(p.Host, base.Host) {
		return "", false
	}
	return p.String(), true
}
