package surgery_test

import (
	"testing"

	"github.com/cairn-dev/cairn/surgery"
)

// TestShortNames pins that a session and its subagents get labels that
// read as a parent and its agents, not as one id cut off ("…1f02-").
func TestShortNames(t *testing.T) {
	const (
		a   = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"
		b   = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f02"
		c   = "9d1e0000-0000-4000-8000-000000000000"
		sub = b + "-agent-a85e3082ea2cdf73b"
	)
	got := surgery.ShortNames([]string{a, b, sub, c})
	for id, want := range map[string]string{
		a:   a,
		b:   b,
		sub: b + "/agent-a85e3082",
		c:   "9d1e0000",
	} {
		if got[id] != want {
			t.Errorf("ShortNames[%s] = %q, want %q", id, got[id], want)
		}
	}
}
