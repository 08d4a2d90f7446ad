package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testRobots = `User-agent: *
Disallow: /

User-agent: meshnode
Disallow: /private/
Crawl-delay: 3
`

func TestRobotsDisallowAndCrawlDelay(t *testing.T) {
	p := newPeer(t, mux(map[string]http.Handler{
		"/robots.txt": serve(200, testRobots),
		"/":           serve(200, "file"),
	}))
	clk := newFakeClock()
	c := newTestClient(clk, nil)
	ctx := context.Background()

	_, err := c.Get(ctx, Request{URL: p.URL + "/private/MANIFEST.md"})
	wantKind(t, err, KindBlocked)
	if p.Hits("/private/MANIFEST.md") != 0 {
		t.Error("a disallowed URL was requested")
	}
	for _, f := range []string{"/pub/a.md", "/pub/b.md", "/pub/c.md"} {
		if _, err := c.Get(ctx, Request{URL: p.URL + f}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	if want := []time.Duration{3 * time.Second, 3 * time.Second}; !reflect.DeepEqual(clk.Sleeps(), want) {
		t.Errorf("sleeps = %v, want the crawl delay %v between requests", clk.Sleeps(), want)
	}
	if n := p.Hits("/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times, want once", n)
	}
}

func TestRobotsIsCachedForADay(t *testing.T) {
	p := newPeer(t, mux(map[string]http.Handler{
		"/robots.txt": serve(200, "User-agent: *\nDisallow: /x/\n"),
		"/":           serve(200, "file"),
	}))
	clk := newFakeClock()
	c := newTestClient(clk, nil)
	get := func() {
		t.Helper()
		if _, err := c.Get(context.Background(), Request{URL: p.URL + "/a.md"}); err != nil {
			t.Fatal(err)
		}
	}
	get()
	clk.Advance(23 * time.Hour)
	get()
	if n := p.Hits("/robots.txt"); n != 1 {
		t.Fatalf("robots.txt fetched %d times within 24 h", n)
	}
	clk.Advance(2 * time.Hour)
	get()
	if n := p.Hits("/robots.txt"); n != 2 {
		t.Fatalf("robots.txt fetched %d times after 25 h, want 2", n)
	}
}

func TestRobotsStatusDecidesAccess(t *testing.T) {
	tests := []struct {
		name     string
		robots   http.Handler
		wantKind Kind
	}{
		{"404 allows all", serve(404, ""), ""},
		{"403 allows all", serve(403, ""), ""},
		{"empty file allows all", serve(200, ""), ""},
		{"unparsable file allows all", serve(200, "Disallow: /\nCrawl-delay: soon\n"), ""},
		{"other agents' rules do not apply", serve(200, "User-agent: googlebot\nDisallow: /\n"), ""},
		{"star group applies to meshnode", serve(200, "User-agent: *\nDisallow: /\n"), KindBlocked},
		{"redirect off the host allows all", http.RedirectHandler("http://192.0.2.1/robots.txt", http.StatusFound), ""},
		{"5xx disallows all", serve(500, ""), KindServer},
		{"429 on robots is a rate limit", serve(429, "", "Retry-After", "900"), KindRateLimited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPeer(t, mux(map[string]http.Handler{"/robots.txt": tt.robots, "/": serve(200, "file")}))
			c := newTestClient(newFakeClock(), nil)
			_, err := c.Get(context.Background(), Request{URL: p.URL + "/a.md"})
			if tt.wantKind == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantKind(t, err, tt.wantKind)
			if p.Hits("/a.md") != 0 {
				t.Error("the file was requested although robots.txt forbade it")
			}
		})
	}
}

func TestUnreadableRobotsIsAskedAgainOnlyAfterRobotsRetry(t *testing.T) {
	p := newPeer(t, mux(map[string]http.Handler{"/robots.txt": serve(503, "down"), "/": serve(200, "file")}))
	clk := newFakeClock()
	c := newTestClient(clk, func(o *Options) { o.MaxRetries = -1 })
	for _, peer := range []string{"/alice/MANIFEST.md", "/bob/MANIFEST.md"} {
		_, err := c.Get(context.Background(), Request{URL: p.URL + peer})
		e := wantKind(t, err, KindServer)
		if !strings.Contains(e.Error(), "robots.txt unreadable") || e.URL != p.URL+peer {
			t.Errorf("error %q does not name the file and the robots.txt cause", e)
		}
	}
	if n := p.Hits("/robots.txt"); n != 1 {
		t.Errorf("robots.txt asked %d times for two peers on one host, want once", n)
	}
	clk.Advance(RobotsRetry + time.Second)
	c.Get(context.Background(), Request{URL: p.URL + "/alice/MANIFEST.md"})
	if n := p.Hits("/robots.txt"); n != 2 {
		t.Errorf("robots.txt asked %d times after RobotsRetry, want 2", n)
	}
}

func TestStaleRobotsIsUsedWhenTheHostFails(t *testing.T) {
	var down atomic.Bool
	p := newPeer(t, mux(map[string]http.Handler{
		"/robots.txt": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if down.Load() {
				w.WriteHeader(500)
				return
			}
			w.Write([]byte("User-agent: meshnode\nDisallow: /x/\n"))
		}),
		"/": serve(200, "file"),
	}))
	clk := newFakeClock()
	c := newTestClient(clk, func(o *Options) { o.MaxRetries = -1 })
	if _, err := c.Get(context.Background(), Request{URL: p.URL + "/a.md"}); err != nil {
		t.Fatal(err)
	}
	down.Store(true)
	clk.Advance(RobotsTTL + time.Hour)
	if _, err := c.Get(context.Background(), Request{URL: p.URL + "/b.md"}); err != nil {
		t.Errorf("allowed file refused although a stale robots.txt allows it: %v", err)
	}
	_, err := c.Get(context.Background(), Request{URL: p.URL + "/x/c.md"})
	wantKind(t, err, KindBlocked)
}

func TestTruncateRobotsCutsAtALineEnd(t *testing.T) {
	line := "Disallow: /" + strings.Repeat("a", 50) + "\n"
	body := "User-agent: *\n" + strings.Repeat(line, MaxRobotsBytes/len(line)+10)
	got := truncateRobots(body)
	if len(got) > MaxRobotsBytes || !strings.HasSuffix(got, "\n") {
		t.Errorf("truncated to %d bytes ending %q", len(got), got[len(got)-5:])
	}
	if truncateRobots("short\n") != "short\n" {
		t.Error("short file changed")
	}
}

func TestRobotsIsFetchedOnceForManyPeersOnAHost(t *testing.T) {
	p := newPeer(t, mux(map[string]http.Handler{
		"/robots.txt": serve(200, "User-agent: *\nAllow: /\n"),
		"/":           serve(200, "manifest"),
	}))
	c := newTestClient(newFakeClock(), nil)
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			url := p.URL + "/agents-hosted/agent" + strconv.Itoa(i) + "/MANIFEST.md"
			if _, err := c.Get(context.Background(), Request{URL: url}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := p.Hits("/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times for 12 peers on one host, want once", n)
	}
}

func TestUnreachableHostIsNamedSoNotAsARobotsRule(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens there any more
	c := newTestClient(newFakeClock(), func(o *Options) { o.MaxRetries = -1 })
	_, err := c.Get(context.Background(), Request{URL: base + "/dormant/MANIFEST.md"})
	e := wantKind(t, err, KindNetwork)
	if !strings.Contains(e.Error(), "host unreachable") || strings.Contains(e.Error(), "RFC 9309") {
		t.Errorf("error %q should say the host is unreachable, not blame robots.txt", e)
	}
}
