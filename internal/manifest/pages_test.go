package manifest

import (
	"net/url"
	"strings"
	"testing"
)

func TestPageURL(t *testing.T) {
	const agent = "https://ada.example.org/mesh/"
	for _, tc := range []struct {
		name, pattern, file, want string
	}{
		{"meshnode layout", "https://ada.example.org/mesh/{stem}.html", "traces/001-x.md", "https://ada.example.org/mesh/traces/001-x.html"},
		{"another folder on the host", "https://ada.example.org/read/{stem}/", "traces/x.md", "https://ada.example.org/read/traces/x/"},
		{"another host", "https://spam.example/{stem}.html", "traces/x.md", ""},
		{"no stem", "https://ada.example.org/mesh/page.html", "traces/x.md", ""},
		{"two stems", "https://ada.example.org/{stem}/{stem}.html", "traces/x.md", ""},
		{"javascript", "javascript:alert(1)//{stem}", "traces/x.md", ""},
		{"not markdown", "https://ada.example.org/mesh/{stem}.html", "traces/x.txt", ""},
		{"climbing file", "https://ada.example.org/mesh/{stem}.html", "../../x.md", ""},
		{"file with a query", "https://ada.example.org/mesh/{stem}.html", "traces/x?y.md", ""},
		{"user info", "https://evil@ada.example.org/{stem}.html", "traces/x.md", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := PageURL(tc.pattern, agent, tc.file)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("PageURL(%q, %q) = %q, %v; want %q", tc.pattern, tc.file, got, ok, tc.want)
			}
		})
	}
}

func TestPagesLineRoundTrips(t *testing.T) {
	m := &Manifest{Agent: "ada", URL: "https://ada.example.org/mesh/", Pages: "https://ada.example.org/mesh/{stem}.html"}
	back, _, err := Parse(m.Format())
	if err != nil || back.Pages != m.Pages {
		t.Fatalf("pages %q after a round trip (%v), want %q", back.Pages, err, m.Pages)
	}
}

// FuzzPageURL checks that a page, whatever a peer's pattern and file, is
// an http or https URL on the agent's host.
func FuzzPageURL(f *testing.F) {
	f.Add("https://ada.example.org/{stem}.html", "traces/x.md")
	f.Add("javascript:{stem}", "traces/x.md")
	f.Add("https://ada.example.org@evil/{stem}", "x.md")
	f.Fuzz(func(t *testing.T, pattern, file string) {
		got, ok := PageURL(pattern, "https://ada.example.org/", file)
		if !ok {
			return
		}
		u, err := url.Parse(got)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.EqualFold(u.Host, "ada.example.org") {
			t.Fatalf("PageURL(%q, %q) = %q", pattern, file, got)
		}
	})
}
