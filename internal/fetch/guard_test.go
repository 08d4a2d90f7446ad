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

func TestDialGuardRefusesMetadataAddressesEvenWhenPrivateIsAllowed(t *testing.T) {
	tests := []struct {
		addr           string
		private, never bool // refused without allow_private_addresses; refused always
	}{
		{"169.254.169.254:80", true, true},
		{"169.254.0.23:80", true, true}, // Tencent Cloud metadata
		{"[fe80::1]:80", true, true},
		{"[fe80::1%25eth0]:80", true, true},
		{"[fd00:ec2::254]:80", true, true},
		{"100.100.100.200:80", true, true},
		{"168.63.129.16:80", true, true},
		{"192.0.0.192:80", true, true},
		{"[::ffff:169.254.169.254]:80", true, true},
		{"[64:ff9b::a9fe:a9fe]:80", true, true}, // NAT64 of 169.254.169.254
		{"[2002:a9fe:a9fe::1]:80", true, true},  // 6to4 of 169.254.169.254
		{"127.0.0.1:80", true, false},
		{"10.0.0.5:443", true, false},
		{"[fd12:3456::1]:80", true, false},
		{"8.8.8.8:443", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			addr := strings.Replace(tt.addr, "%25", "%", 1)
			for _, allow := range []bool{false, true} {
				err := dialGuard(allow, settingPrivate)("tcp", addr, nil)
				want := tt.never || (!allow && tt.private)
				if (err != nil) != want {
					t.Errorf("allow_private_addresses %v: guard(%s) = %v, want refused %v", allow, addr, err, want)
				}
			}
		})
	}
}

func TestMetadataAddressIsRefusedAtConnectTimeWithPrivateAllowed(t *testing.T) {
	c := newTestClient(newFakeClock(), nil) // AllowPrivate
	_, err := c.Get(context.Background(), Request{URL: "http://169.254.169.254/latest/meta-data/"})
	e := wantKind(t, err, KindPrivate)
	if !strings.Contains(e.Error(), "metadata") {
		t.Errorf("error %q does not say why the address is refused", e)
	}
}

func TestPublicRequestCannotReachAPrivateAddressTheClientAllows(t *testing.T) {
	p := newPeer(t, serve(200, "ok"))
	c := newTestClient(newFakeClock(), nil) // AllowPrivate, as for a LAN mesh
	public := Request{URL: p.URL + "/learned/MANIFEST.md", Public: true}
	if _, err := c.Get(context.Background(), public); !IsKind(err, KindPrivate) {
		t.Fatalf("public request to 127.0.0.1 = %v, want %s", err, KindPrivate)
	}
	// A listed peer on the same address opens a connection; the public
	// request must not borrow it.
	if _, err := c.Get(context.Background(), Request{URL: p.URL + "/listed/MANIFEST.md"}); err != nil {
		t.Fatalf("the client no longer reaches a private address it allows: %v", err)
	}
	if _, err := c.Get(context.Background(), public); !IsKind(err, KindPrivate) {
		t.Fatalf("public request after a pooled private connection = %v, want %s", err, KindPrivate)
	}
	if _, err := c.Get(context.Background(), public); err == nil || !strings.Contains(err.Error(), "gossip.allow_private_addresses") {
		t.Errorf("error %v does not name the setting that would allow it", err)
	}
	if n := p.Hits("/learned/MANIFEST.md"); n != 0 {
		t.Errorf("the public request reached the private address %d times", n)
	}
}
