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

// alwaysRefused are the addresses no peer may make us reach, whatever
// allow_private_addresses says: a LAN mesh needs its private peers, never
// a cloud's metadata service, which hands out the machine's credentials.
// Link-local unicast (169.254.0.0/16, where AWS, GCP, Azure, Oracle and
// OpenStack serve metadata, and fe80::/10) is checked through netip; these
// are the metadata addresses outside it.
var alwaysRefused = []netip.Prefix{
	netip.MustParsePrefix("fd00:ec2::254/128"),  // AWS metadata over IPv6
	netip.MustParsePrefix("100.100.100.200/32"), // Alibaba Cloud metadata
	netip.MustParsePrefix("168.63.129.16/32"),   // Azure's WireServer
	netip.MustParsePrefix("192.0.0.192/32"),     // Oracle Cloud metadata
}

// privateAddrError is what the dial guard returns; Get maps it to
// KindPrivate. setting names the mesh.yaml key that is off, or is empty
// for an address refused even with every key on.
type privateAddrError struct {
	addr    netip.Addr
	setting string
}

func (e *privateAddrError) Error() string {
	if e.setting == "" {
		return fmt.Sprintf("refusing to connect to link-local or cloud metadata address %s (refused whatever allow_private_addresses says)", e.addr)
	}
	return fmt.Sprintf("refusing to connect to non-public address %s (%s is off)", e.addr, e.setting)
}

// The settings that let a request reach private addresses, named in the
// error of one refused.
const (
	settingPrivate       = "allow_private_addresses"
	settingGossipPrivate = "gossip.allow_private_addresses"
)

// dialGuard returns the net.Dialer Control hook: it sees the resolved IP
// of every connection attempt, so DNS names that resolve (or rebind) to a
// refused address are caught as surely as IP literals. It refuses
// link-local and metadata addresses always, and every other non-public one
// unless allowPrivate; off names the setting that would allow them.
func dialGuard(allowPrivate bool, off string) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("dial %s: unparsable address: %w", address, err)
		}
		switch a := ap.Addr(); {
		case isMetadata(a):
			return &privateAddrError{addr: a}
		case !allowPrivate && isNonPublic(a):
			return &privateAddrError{addr: a, setting: off}
		}
		return nil
	}
}

// isMetadata reports whether a is link-local or a cloud metadata address,
// judged like isNonPublic through IPv4-mapped, NAT64 and 6to4 forms.
func isMetadata(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if v4, ok := embeddedIPv4(a); ok && isMetadata(v4) {
		return true
	}
	if a.IsLinkLocalUnicast() {
		return true
	}
	for _, p := range alwaysRefused {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// isNonPublic reports whether a is an address peers must not make us reach.
// IPv4-mapped IPv6 addresses (::ffff:10.0.0.1) and the NAT64 and 6to4
// forms that embed an IPv4 address are judged by the IPv4 address inside.
func isNonPublic(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if v4, ok := embeddedIPv4(a); ok && isNonPublic(v4) {
		return true
	}
	if isMetadata(a) || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalMulticast() ||
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
