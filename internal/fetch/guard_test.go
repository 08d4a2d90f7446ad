package fetch

import (
	"context"
	"net/netip"
	"strings"
	"testing"
)

func TestIsNonPublic(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.255.0.9", true},
		{"10.1.2.3", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"192.168.1.1", true},
		{"169.254.169.254", true},
		{"100.64.0.1", true},
		{"100.127.255.255", true},
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"224.0.0.1", true},
		{"255.255.255.255", true},
		{"198.18.0.1", true},
		{"::1", true},
		{"::", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"fc00::1", true},
		{"fd12:3456::1", true},
		{"ff02::1", true},
		{"::ffff:127.0.0.1", true},
		{"::ffff:10.0.0.1", true},
		{"::ffff:169.254.169.254", true},
		{"64:ff9b::a9fe:a9fe", true}, // NAT64 of 169.254.169.254
		{"2002:0a00:0001::1", true},  // 6to4 of 10.0.0.1
		{"::7f00:1", true},           // IPv4-compatible 127.0.0.1
		{"8.8.8.8", false},
		{"185.199.108.153", false}, // GitHub Pages
		{"100.63.255.255", false},
		{"100.128.0.0", false},
		{"172.32.0.1", false},
		{"2606:50c0:8000::153", false},
		{"::ffff:8.8.8.8", false},
		{"64:ff9b::808:808", false}, // NAT64 of 8.8.8.8
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			if got := isNonPublic(netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Errorf("isNonPublic(%s) = %v, want %v", tt.addr, got, tt.want)
			}
		})
	}
}

func TestPrivateAddressIsRefusedAtConnectTime(t *testing.T) {
	p := newPeer(t, serve(200, "should not be reached"))
	tests := []struct {
		name string
		url  string
	}{
		{"IP literal", p.URL + "/MANIFEST.md"},
		{"name resolving to loopback", "http://localhost:" + p.URL[len("http://127.0.0.1:"):] + "/MANIFEST.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newFakeClock()
			c := newTestClient(clk, func(o *Options) { o.AllowPrivate = false })
			_, err := c.Get(context.Background(), Request{URL: tt.url})
			e := wantKind(t, err, KindPrivate)
			if !strings.Contains(e.Error(), "allow_private_addresses") {
				t.Errorf("error %q does not name the setting that allows it", e)
			}
			if p.Hits("/MANIFEST.md")+p.Hits("/robots.txt") != 0 {
				t.Error("the private address was reached")
			}
			if len(clk.Sleeps()) != 0 {
				t.Errorf("a refused address was retried: %v", clk.Sleeps())
			}
		})
	}
}

func TestPrivateAddressIsReachableWhenAllowed(t *testing.T) {
	p := newPeer(t, serve(200, "ok"))
	c := newTestClient(newFakeClock(), nil)
	if _, err := c.Get(context.Background(), Request{URL: p.URL + "/MANIFEST.md"}); err != nil {
		t.Fatal(err)
	}
}

func TestGetRefusesBadURLs(t *testing.T) {
	tests := []struct{ name, url string }{
		{"file scheme", "file:///etc/passwd"},
		{"relative", "traces/a.md"},
		{"no host", "http:///a"},
		{"user info", "http://user:pw@peer.example/a"},
		{"unparsable", "http://[::1/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Options{}).Get(context.Background(), Request{URL: tt.url})
			wantKind(t, err, KindBadURL)
		})
	}
}
