package fetch

import (
	"fmt"
	"net/netip"
	"syscall"
)

// blockedPrefixes are the ranges a peer URL must not reach unless the
// config sets allow_private_addresses: a peer could otherwise make the node
// probe its own network (cloud metadata at 169.254.169.254, a router, a
// local service). Loopback, RFC 1918, link-local, unspecified and multicast
// are checked through netip's predicates; these are the ranges it lacks.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking (RFC 2544)
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64 (RFC 8215)
	netip.MustParsePrefix("100::/64"),       // discard-only (RFC 6666)
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
	netip.MustParsePrefix("::/96"),          // deprecated IPv4-compatible IPv6
}

// privateAddrError is what the dial guard returns; Get maps it to
// KindPrivate.
type privateAddrError struct{ addr netip.Addr }

func (e *privateAddrError) Error() string {
	return fmt.Sprintf("refusing to connect to non-public address %s (allow_private_addresses is off)", e.addr)
}

// refusePrivate is the net.Dialer Control hook: it sees the resolved IP of
// every connection attempt, so DNS names that resolve (or rebind) to a
// private address are caught as surely as IP literals.
func refusePrivate(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("dial %s: unparsable address: %w", address, err)
	}
	if isNonPublic(ap.Addr()) {
		return &privateAddrError{addr: ap.Addr()}
	}
	return nil
}

// isNonPublic reports whether a is an address peers must not make us reach.
// IPv4-mapped IPv6 addresses (::ffff:10.0.0.1) and the NAT64 and 6to4
// forms that embed an IPv4 address are judged by the IPv4 address inside.
func isNonPublic(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if v4, ok := embeddedIPv4(a); ok && isNonPublic(v4) {
		return true
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return true
	}
	for _, p := range blockedPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96") // RFC 6052: IPv4 in the last 32 bits
	sixToFour   = netip.MustParsePrefix("2002::/16")    // RFC 3056: IPv4 in bits 16–47
)

// embeddedIPv4 returns the IPv4 address carried inside a NAT64 or 6to4
// IPv6 address.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	switch {
	case nat64Prefix.Contains(a):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}
