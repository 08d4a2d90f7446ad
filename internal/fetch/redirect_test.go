package fetch

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestRedirectsStayOnTheHost(t *testing.T) {
	other := newPeer(t, serve(200, "elsewhere"))
	p := newPeer(t, mux(map[string]http.Handler{
		"/old":     http.RedirectHandler("/new", http.StatusMovedPermanently),
		"/new":     serve(200, "moved here"),
		"/loop":    http.RedirectHandler("/loop", http.StatusFound),
		"/away":    http.RedirectHandler(other.URL+"/x", http.StatusFound),
		"/ftp":     http.RedirectHandler("ftp://example.com/x", http.StatusFound),
		"/nowhere": serve(http.StatusFound, ""),
	}))
	tests := []struct {
		name      string
		path      string
		wantKind  Kind
		wantFinal string
		wantHits  map[string]int
	}{
		{"same-host redirect is followed", "/old", "", "/new", map[string]int{"/old": 1, "/new": 1}},
		{"redirect loop is bounded", "/loop", KindRedirect, "", map[string]int{"/loop": DefaultMaxRedirects + 1}},
		{"redirect to another host is refused", "/away", KindRedirect, "", map[string]int{"/away": 1}},
		{"redirect to a non-http scheme is refused", "/ftp", KindRedirect, "", map[string]int{"/ftp": 1}},
		{"redirect without Location fails", "/nowhere", KindRedirect, "", map[string]int{"/nowhere": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := map[string]int{}
			for path := range tt.wantHits {
				before[path] = p.Hits(path)
			}
			c := newTestClient(newFakeClock(), func(o *Options) { o.IgnoreRobots = true })
			resp, err := c.Get(context.Background(), Request{URL: p.URL + tt.path})
			if tt.wantKind != "" {
				wantKind(t, err, tt.wantKind)
			} else if err != nil {
				t.Fatal(err)
			} else if resp.FinalURL != p.URL+tt.wantFinal {
				t.Errorf("FinalURL = %q", resp.FinalURL)
			}
			for path, n := range tt.wantHits {
				if got := p.Hits(path) - before[path]; got != n {
					t.Errorf("%s requested %d times, want %d", path, got, n)
				}
			}
			if other.Hits("/x") != 0 {
				t.Error("the other host was contacted")
			}
		})
	}
}

func TestCheckRedirectRefusesHTTPSDowngrade(t *testing.T) {
	check := checkRedirect(5)
	first, _ := http.NewRequest("GET", "https://peer.example/a", nil)
	next, _ := http.NewRequest("GET", "http://peer.example/b", nil)
	err := check(next, []*http.Request{first})
	if err == nil || !strings.Contains(err.Error(), "downgrade") {
		t.Errorf("err = %v, want a downgrade refusal", err)
	}
	up, _ := http.NewRequest("GET", "https://PEER.example/b", nil)
	plain, _ := http.NewRequest("GET", "http://peer.example/a", nil)
	if err := check(up, []*http.Request{plain}); err != nil {
		t.Errorf("upgrade to https on the same host refused: %v", err)
	}
}

// TestRedirectsStayUnderThePeersBase: on a shared host another path is
// another agent's, so with Request.Within a redirect is confined by the
// rule manifest paths follow (issue 8, item 5).
func TestRedirectsStayUnderThePeersBase(t *testing.T) {
	p := newPeer(t, mux(map[string]http.Handler{
		"/b/t/out.md":    http.RedirectHandler("/outside/x.md", http.StatusFound),
		"/b/t/up.md":     http.RedirectHandler("/b/t/../../outside/x.md", http.StatusFound),
		"/b/t/enc.md":    http.RedirectHandler("/b/t/%252e%252e/x.md", http.StatusFound),
		"/b/t/query.md":  http.RedirectHandler("/b/t/x.md?raw=1", http.StatusFound),
		"/b/t/sister.md": http.RedirectHandler("/b/tt/x.md", http.StatusFound),
		"/b/t/moved.md":  http.RedirectHandler("/b/t/sub/x.md", http.StatusMovedPermanently),
		"/b/t/sub/x.md":  serve(200, "inside"),
		"/outside/x.md":  serve(200, "outside"),
		"/b/tt/x.md":     serve(200, "sister"),
	}))
	base := p.URL + "/b/t/"
	tests := []struct {
		name, path string
		wantKind   Kind
	}{
		{"redirect within the base is followed", "/b/t/moved.md", ""},
		{"redirect to another path of the host is refused", "/b/t/out.md", KindRedirect},
		{"redirect climbing out with dot segments is refused", "/b/t/up.md", KindRedirect},
		{"redirect with double encoding is refused", "/b/t/enc.md", KindRedirect},
		{"redirect adding a query is refused", "/b/t/query.md", KindRedirect},
		{"redirect to a sibling sharing the prefix is refused", "/b/t/sister.md", KindRedirect},
		{"a request outside the base is refused before any request", "/outside/x.md", KindBadURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(newFakeClock(), func(o *Options) { o.IgnoreRobots = true })
			before := p.Hits("/outside/x.md") + p.Hits("/b/tt/x.md")
			resp, err := c.Get(context.Background(), Request{URL: p.URL + tt.path, Within: base})
			if tt.wantKind == "" {
				if err != nil {
					t.Fatal(err)
				}
				if string(resp.Body) != "inside" || resp.FinalURL != p.URL+"/b/t/sub/x.md" {
					t.Errorf("body %q from %s", resp.Body, resp.FinalURL)
				}
				return
			}
			e := wantKind(t, err, tt.wantKind)
			if tt.wantKind == KindRedirect && !strings.Contains(e.Error(), "base URL") {
				t.Errorf("error does not say it left the base URL: %v", e)
			}
			if got := p.Hits("/outside/x.md") + p.Hits("/b/tt/x.md"); got != before {
				t.Errorf("a file outside the base was requested")
			}
		})
	}
}

func TestRedirectUpgradingToHTTPSStaysWithin(t *testing.T) {
	u, _ := url.Parse("https://peer.example/b/t/x.md")
	if err := within("http://peer.example/b/t/", u); err != nil {
		t.Errorf("an upgrade to https within the base refused: %v", err)
	}
	out, _ := url.Parse("https://peer.example/b/x.md")
	if err := within("http://peer.example/b/t/", out); err == nil {
		t.Error("an upgrade that leaves the base accepted")
	}
}
