package webhook

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/cutroom/cutroom/apierr"
)

// Guard decides which remote addresses outbound requests (webhook callbacks and any other
// remote fetch) may reach. By default only public unicast addresses are allowed; loopback,
// private (RFC 1918, fc00::/7, CGNAT 100.64/10), link-local (169.254/16, fe80::/10, which
// hold the cloud metadata addresses 169.254.169.254 and fd00:ec2::254), unspecified,
// multicast and reserved addresses are refused unless the operator allows them.
//
// The check runs at dial time on the resolved address, so a host name that resolves to a
// public address when checked and to a private one when dialled (DNS rebinding) is still
// refused. A Guard is immutable and safe for concurrent use.
type Guard struct {
	loopback bool
	private  bool
	prefixes []netip.Prefix
	hosts    map[string]bool
}

// NewGuard builds a guard from allow entries: "loopback", "private", CIDR prefixes or single
// addresses (e.g. 169.254.169.254/32, fd00::/8, 10.1.2.3), and host names, which are
// allowed whatever they resolve to.
func NewGuard(allow []string) (*Guard, error) {
	g := &Guard{hosts: map[string]bool{}}
	for _, raw := range allow {
		e := strings.ToLower(strings.TrimSpace(raw))
		switch {
		case e == "":
		case e == "loopback":
			g.loopback = true
		case e == "private":
			g.private = true
		case strings.Contains(e, "/"):
			p, err := netip.ParsePrefix(e)
			if err != nil {
				return nil, fmt.Errorf("allow entry %q: %w", raw, err)
			}
			g.prefixes = append(g.prefixes, p.Masked())
		default:
			if a, err := netip.ParseAddr(strings.Trim(e, "[]")); err == nil {
				g.prefixes = append(g.prefixes, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
				continue
			}
			if strings.ContainsAny(e, " :@?#") {
				return nil, fmt.Errorf("allow entry %q is not loopback, private, a CIDR, an address or a host name", raw)
			}
			g.hosts[strings.TrimSuffix(e, ".")] = true
		}
	}
	return g, nil
}

var (
	privateRanges = mustPrefixes("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7", "100.64.0.0/10")
	// refusedRanges are never reached unless allowed by an explicit prefix.
	refusedRanges = mustPrefixes("0.0.0.0/8", "169.254.0.0/16", "fe80::/10", "224.0.0.0/4", "240.0.0.0/4",
		"ff00::/8", "::/128", "192.0.0.0/24", "198.18.0.0/15", "100::/64")
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

func inAny(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// CodeNotAllowed is the code of every refusal of the guard: an address or URL the server
// does not send requests to. Its errors name callbackUrl as the field at fault.
var CodeNotAllowed = apierr.Define(apierr.Unprocessable, "CALLBACK_URL_NOT_ALLOWED")

func notAllowed(format string, args ...any) error {
	return CodeNotAllowed.Field("callbackUrl", format, args...)
}

// CheckAddr returns a CodeNotAllowed error when a may not be reached. An IPv6 address that
// embeds an IPv4 address (see EmbeddedIPv4) must pass the IPv4 rules for each address it
// embeds as well as the IPv6 rules: 2002:7f00:1:: (6to4 of 127.0.0.1) is loopback.
func (g *Guard) CheckAddr(a netip.Addr) error {
	a = a.Unmap()
	if inAny(a, g.prefixes) {
		return nil
	}
	if err := g.checkOne(a); err != nil {
		return err
	}
	for _, e := range EmbeddedIPv4(a) {
		if inAny(e.Addr, g.prefixes) {
			continue
		}
		if err := g.checkOne(e.Addr); err != nil {
			return notAllowed("address %s embeds %s (%s): %v", a, e.Addr, e.Form, err)
		}
	}
	return nil
}

// checkOne applies the rules to one address, without looking inside it.
func (g *Guard) checkOne(a netip.Addr) error {
	kind := ""
	switch {
	case !a.IsValid():
		kind = "invalid"
	case a.IsLoopback():
		if g.loopback {
			return nil
		}
		kind = "loopback"
	case inAny(a, privateRanges):
		if g.private {
			return nil
		}
		kind = "private"
	case a.IsUnspecified():
		kind = "unspecified"
	case a.IsMulticast():
		kind = "multicast"
	case a.IsLinkLocalUnicast():
		kind = "link-local (cloud metadata)"
	case inAny(a, refusedRanges):
		kind = "reserved"
	default:
		return nil
	}
	return notAllowed("address %s is %s; the server does not send requests there unless the operator allows it (--allow-hosts)", a, kind)
}

// Embedded is an IPv4 address found inside an IPv6 address, and the form that put it there.
type Embedded struct {
	Addr netip.Addr
	Form string
}

var (
	ipv4Compatible = netip.MustParsePrefix("::/96")
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	teredo         = netip.MustParsePrefix("2001::/32")
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")
)

// EmbeddedIPv4 returns the IPv4 addresses an IPv6 address a carries, by which a packet to a
// may end up at them: IPv4-compatible ::a.b.c.d (but :: and ::1), SIIT ::ffff:0:a.b.c.d,
// 6to4 2002:AABB:CCDD::/48, Teredo 2001:0::/32 (the server in bits 32-63 and the client in
// the last 32 bits, inverted), NAT64 64:ff9b::a.b.c.d, and local-use NAT64 64:ff9b:1::/48,
// whose operator picks the prefix length: every RFC 6052 position inside the /48 (/48, /56,
// /64 and /96) is returned, so all must pass. IPv4-mapped addresses are unmapped by callers
// (netip.Addr.Unmap). An IPv4 address or any other IPv6 address embeds nothing.
func EmbeddedIPv4(a netip.Addr) []Embedded {
	if !a.Is6() || a.Is4In6() {
		return nil
	}
	b := a.As16()
	v4 := func(p []byte) netip.Addr { return netip.AddrFrom4([4]byte{p[0], p[1], p[2], p[3]}) }
	switch {
	case nat64.Contains(a):
		return []Embedded{{v4(b[12:]), "NAT64 64:ff9b::/96"}}
	case nat64Local.Contains(a):
		return []Embedded{
			{v4([]byte{b[6], b[7], b[9], b[10]}), "local-use NAT64 64:ff9b:1::/48 as a /48"},
			{v4([]byte{b[7], b[9], b[10], b[11]}), "local-use NAT64 64:ff9b:1::/48 as a /56"},
			{v4(b[9:13]), "local-use NAT64 64:ff9b:1::/48 as a /64"},
			{v4(b[12:]), "local-use NAT64 64:ff9b:1::/48 as a /96"},
		}
	case sixToFour.Contains(a):
		return []Embedded{{v4(b[2:6]), "6to4 2002::/16"}}
	case teredo.Contains(a):
		client := [4]byte{b[12] ^ 0xff, b[13] ^ 0xff, b[14] ^ 0xff, b[15] ^ 0xff}
		return []Embedded{{v4(b[4:8]), "Teredo 2001::/32 server"}, {netip.AddrFrom4(client), "Teredo 2001::/32 client"}}
	case ipv4Translated.Contains(a):
		return []Embedded{{v4(b[12:]), "IPv4-translated ::ffff:0:0:0/96"}}
	case ipv4Compatible.Contains(a) && !a.IsUnspecified() && !a.IsLoopback():
		return []Embedded{{v4(b[12:]), "IPv4-compatible ::/96"}}
	}
	return nil
}

// hostAllowed reports whether host (a name, not an address) is allowed by name.
func (g *Guard) hostAllowed(host string) bool {
	return g.hosts[strings.TrimSuffix(strings.ToLower(host), ".")]
}

// CheckURL checks that raw is an absolute http(s) URL whose host the guard allows,
// resolving host names now (for a fast, clear refusal; the dial checks again).
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return notAllowed("callbackUrl must be an absolute http or https URL without user info")
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		return g.CheckAddr(a)
	}
	if g.hostAllowed(host) {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(rctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return notAllowed("the host %q of callbackUrl does not resolve", host)
	}
	for _, a := range addrs {
		if err := g.CheckAddr(a); err != nil {
			return notAllowed("callbackUrl host %q resolves to a refused address: %v", host, err)
		}
	}
	return nil
}

// DialContext dials addr like net.Dialer, refusing at connect time any resolved address
// the guard does not allow (unless addr's host is allowed by name).
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if _, perr := netip.ParseAddr(host); perr != nil && g.hostAllowed(host) {
		return d.DialContext(ctx, network, addr)
	}
	d.Control = func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return notAllowed("cannot check address %q", address)
		}
		return g.CheckAddr(ap.Addr())
	}
	return d.DialContext(ctx, network, addr)
}

// Client returns an HTTP client that dials through the guard, uses no proxy, does not
// follow redirects and gives up after timeout.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// IsNotAllowed reports whether err is (or wraps) a guard refusal.
func IsNotAllowed(err error) bool {
	return CodeNotAllowed.Is(err)
}
