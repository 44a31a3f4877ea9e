package webhook_test

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/netnstest"
	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/webhook"
)

// inNetns is true when the tests run in a private network namespace (loopback only).
var inNetns = netnstest.InNetns()

// TestMain runs the tests in a private network namespace when root, so that no test of this
// package can send a packet off the machine.
func TestMain(m *testing.M) {
	if code, done := netnstest.Reexec("webhook"); done {
		os.Exit(code)
	}
	os.Exit(pgtest.Main(m)) // stops the PostgreSQL the tests started, if any
}

// TestGuardEmbeddedIPv4: each way an IPv6 address can carry an IPv4 address is decoded and
// the IPv4 rules applied to what it carries.
func TestGuardEmbeddedIPv4(t *testing.T) {
	def, _ := webhook.NewGuard(nil)
	lo, _ := webhook.NewGuard([]string{"loopback"})
	priv, _ := webhook.NewGuard([]string{"private"})
	pfx, _ := webhook.NewGuard([]string{"10.9.0.0/16", "64:ff9b:1::/96"})
	cases := []struct {
		addr               string
		embeds             []string
		def, lo, priv, pfx bool // allowed by each guard
	}{
		// IPv4-mapped (unmapped before the rules).
		{"::ffff:127.0.0.1", nil, false, true, false, false},
		{"::ffff:10.9.1.1", nil, false, false, true, true},
		{"::ffff:8.8.8.8", nil, true, true, true, true},
		// IPv4-compatible ::/96.
		{"::127.0.0.1", []string{"127.0.0.1"}, false, true, false, false},
		{"::10.9.1.1", []string{"10.9.1.1"}, false, false, true, true},
		{"::169.254.169.254", []string{"169.254.169.254"}, false, false, false, false},
		{"::8.8.8.8", []string{"8.8.8.8"}, true, true, true, true},
		{"::1", nil, false, true, false, false},
		{"::", nil, false, false, false, false},
		// IPv4-translated (SIIT) ::ffff:0:0:0/96.
		{"::ffff:0:7f00:1", []string{"127.0.0.1"}, false, true, false, false},
		// 6to4 2002::/16: the IPv4 address in bits 16-47.
		{"2002:7f00:1::", []string{"127.0.0.1"}, false, true, false, false},
		{"2002:7f00:1::1", []string{"127.0.0.1"}, false, true, false, false},
		{"2002:a09:101::1", []string{"10.9.1.1"}, false, false, true, true},
		{"2002:a9fe:a9fe::", []string{"169.254.169.254"}, false, false, false, false},
		{"2002:c0a8:101::", []string{"192.168.1.1"}, false, false, true, false},
		{"2002:808:808::1", []string{"8.8.8.8"}, true, true, true, true},
		// Teredo 2001::/32: server in bits 32-63, client in the last 32 bits inverted.
		{"2001:0:808:808:0:0:80ff:fefe", []string{"8.8.8.8", "127.0.1.1"}, false, true, false, false},
		{"2001:0:7f00:1:0:0:f7f7:f7f7", []string{"127.0.0.1", "8.8.8.8"}, false, true, false, false},
		{"2001:0:808:808:0:0:f7f7:f7f7", []string{"8.8.8.8", "8.8.8.8"}, true, true, true, true},
		{"2001:0:808:808::f5f6:fefe", []string{"8.8.8.8", "10.9.1.1"}, false, false, true, true},
		// NAT64 64:ff9b::/96.
		{"64:ff9b::7f00:1", []string{"127.0.0.1"}, false, true, false, false},
		{"64:ff9b::a9fe:a9fe", []string{"169.254.169.254"}, false, false, false, false},
		{"64:ff9b::808:808", []string{"8.8.8.8"}, true, true, true, true},
		// Local-use NAT64 64:ff9b:1::/48, every RFC 6052 position (/48, /56, /64, /96).
		// The operator picks the prefix length, so in practice the prefix is refused unless
		// allowed as a prefix (the pfx guard allows 64:ff9b:1::/96).
		{"64:ff9b:1:7f00:0:100::", []string{"127.0.0.1", "0.0.1.0", "0.1.0.0", "0.0.0.0"}, false, false, false, false},
		{"64:ff9b:1::7f00:1", []string{"0.0.0.0", "0.0.0.0", "0.0.0.127", "127.0.0.1"}, false, false, false, true},
		{"64:ff9b:1::808:808", []string{"0.0.0.0", "0.0.0.0", "0.0.0.8", "8.8.8.8"}, false, false, false, true},
		{"64:ff9b:1:808:8:808:808:808", []string{"8.8.8.8", "8.8.8.8", "8.8.8.8", "8.8.8.8"}, true, true, true, true},
		// Ordinary IPv6 addresses carry nothing.
		{"2606:2800:21f:cb07:6820:80da:af6b:8b2c", nil, true, true, true, true},
		{"2001:db8::1", nil, true, true, true, true},
	}
	for _, c := range cases {
		a := netip.MustParseAddr(c.addr)
		var got []string
		for _, e := range webhook.EmbeddedIPv4(a) {
			got = append(got, e.Addr.String())
		}
		if fmt.Sprint(got) != fmt.Sprint(c.embeds) && !(len(got) == 0 && len(c.embeds) == 0) {
			t.Errorf("%s embeds %v, want %v", c.addr, got, c.embeds)
		}
		for _, g := range []struct {
			name string
			g    *webhook.Guard
			want bool
		}{{"default", def, c.def}, {"loopback", lo, c.lo}, {"private", priv, c.priv}, {"prefixes", pfx, c.pfx}} {
			if err := g.g.CheckAddr(a); (err == nil) != g.want {
				t.Errorf("%s guard, %s: err=%v, want allowed=%v", g.name, c.addr, err, g.want)
			}
		}
	}
}

// TestGuardRefusesEmbeddedLoopbackAtDial: a callback to 6to4 of 127.0.0.1 is refused by the
// guard itself, at CheckURL and at dial time. It dials, so it runs only in a private network
// namespace.
func TestGuardRefusesEmbeddedLoopbackAtDial(t *testing.T) {
	if !inNetns {
		t.Skip("dials outside loopback: needs a private network namespace (root and unshare)")
	}
	def, _ := webhook.NewGuard(nil)
	for _, u := range []string{"http://[2002:7f00:1::]/", "http://[64:ff9b::7f00:1]:8080/", "http://[2001:0:808:808::80ff:fefe]/"} {
		if err := def.CheckURL(context.Background(), u); !webhook.IsNotAllowed(err) {
			t.Errorf("CheckURL %s: %v", u, err)
		}
		resp, err := def.Client(2 * time.Second).Get(u)
		if err == nil {
			resp.Body.Close()
		}
		if !webhook.IsNotAllowed(err) {
			t.Errorf("dial %s: %v, want a guard refusal", u, err)
		}
	}
}
