package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestHostsMarshalDeterministically(t *testing.T) {
	clk := newFakeClock()
	now := clk.Now()
	c := newTestClient(clk, nil)
	c.LoadHosts(map[string]HostState{
		"peer.example": {
			CooldownUntil: now.Add(10 * time.Minute), CrawlDelay: 2 * time.Second,
			RobotsFetched: now.Add(-time.Hour), Robots: "User-agent: *\nCrawl-delay: 2\n",
		},
		"expired.example": {CooldownUntil: now.Add(-time.Minute)},
		"hostile.example:8443": {
			CooldownUntil: now.Add(100 * 24 * time.Hour), CrawlDelay: time.Hour,
			RobotsFetched: now.Add(48 * time.Hour), Robots: "User-agent: *\nDisallow: /private/\n",
		},
		"Upper.Example": {RobotsFetched: now},
	})
	got, err := json.MarshalIndent(c.Hosts(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "hosts.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Hosts() JSON differs from %s (run go test -update and review the diff):\n%s", golden, got)
	}
	again, _ := json.MarshalIndent(c.Hosts(), "", "  ")
	if !bytes.Equal(append(again, '\n'), got) {
		t.Error("two marshals of the same state differ")
	}
}

func TestHostStateSurvivesARestart(t *testing.T) {
	p := newPeer(t, mux(map[string]http.Handler{
		"/robots.txt": serve(200, "User-agent: meshnode\nDisallow: /private/\nCrawl-delay: 5\n"),
		"/slow/":      serve(429, "", "Retry-After", "900"),
		"/":           serve(200, "ok"),
	}))
	clk := newFakeClock()
	first := newTestClient(clk, nil)
	first.Get(context.Background(), Request{URL: p.URL + "/a.md"})
	first.Get(context.Background(), Request{URL: p.URL + "/slow/MANIFEST.md"})
	saved := roundTripJSON(t, first.Hosts())

	clk.Advance(time.Minute)
	second := newTestClient(clk, nil)
	second.LoadHosts(saved)
	if !reflect.DeepEqual(second.Hosts(), saved) {
		t.Errorf("restored state differs:\n got %+v\nwant %+v", second.Hosts(), saved)
	}
	_, err := second.Get(context.Background(), Request{URL: p.URL + "/b.md"})
	wantKind(t, err, KindRateLimited)
	clk.Advance(15 * time.Minute)
	_, err = second.Get(context.Background(), Request{URL: p.URL + "/private/x.md"})
	wantKind(t, err, KindBlocked)
	if n := p.Hits("/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times across the restart, want once", n)
	}
	if n := p.Hits("/b.md"); n != 0 {
		t.Error("the restored cooldown was not honoured")
	}
}

func TestHostsLeavesOutHostsWithNothingToKeep(t *testing.T) {
	p := newPeer(t, serve(200, "ok"))
	c := newTestClient(newFakeClock(), func(o *Options) { o.IgnoreRobots = true })
	c.Get(context.Background(), Request{URL: p.URL + "/a"})
	if h := c.Hosts(); len(h) != 0 {
		t.Errorf("Hosts() = %v, want nothing for a host that asked for nothing", h)
	}
}

func roundTripJSON(t *testing.T, hosts map[string]HostState) map[string]HostState {
	t.Helper()
	b, err := json.Marshal(hosts)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]HostState
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || !strings.HasPrefix(string(b), `{"127.0.0.1:`) {
		t.Fatalf("saved hosts = %s", b)
	}
	return out
}
