package http

import (
	"net"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestLoginURLBeyondLoopback pins that a server listening on every
// interface names an address another machine reaches in its login URL,
// not localhost.
func TestLoginURLBeyondLoopback(t *testing.T) {
	defer func(f func() ([]net.Addr, error)) { interfaceAddrs = f }(interfaceAddrs)
	interfaceAddrs = func() ([]net.Addr, error) {
		return []net.Addr{
			&net.IPNet{IP: net.ParseIP("127.0.0.1"), Mask: net.CIDRMask(8, 32)},
			&net.IPNet{IP: net.ParseIP("fe80::1"), Mask: net.CIDRMask(64, 128)},
			&net.IPNet{IP: net.ParseIP("192.0.2.7"), Mask: net.CIDRMask(24, 32)},
		}, nil
	}
	s := NewServer()
	s.Addr, s.Token = "0.0.0.0:0", RandomToken()
	s.Redact = func(text string) string { return text } // beyond loopback needs redaction
	s.RedactHits = func(_ string, hits []*cairn.Hit) []*cairn.Hit { return hits }
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if u := s.LoginURL(); !strings.HasPrefix(u, "http://192.0.2.7:") || !strings.Contains(u, "/login?code=") {
		t.Fatalf("login URL %s: want this machine's address 192.0.2.7", u)
	}
	loop := NewServer()
	loop.Addr = "127.0.0.1:0"
	if err := loop.Open(); err != nil {
		t.Fatal(err)
	}
	defer loop.Close()
	if u := loop.URL(); !strings.HasPrefix(u, "http://127.0.0.1:") {
		t.Fatalf("loopback URL %s", u)
	}
}
