package fetch

import (
	"context"
	"net/http"
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
