package cairn_test

import (
	"errors"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestDamaged_Lost: what a person reads of damaged lines, by cause.
func TestDamaged_Lost(t *testing.T) {
	for _, c := range []struct {
		d    cairn.Damaged
		want string
	}{
		{cairn.Damaged{Session: "s", Generation: 1, First: 3, Last: 3}, "session s: lines 3–3 (generation 1) cannot be read back"},
		{cairn.Damaged{Session: "s", Generation: 1, First: 3, Last: 3, Checksum: true}, "session s: line 3 (generation 1) no longer matches its checksum"},
		{cairn.Damaged{Session: "s", Generation: 2, First: 3, Last: 4, Checksum: true}, "session s: lines 3–4 (generation 2) no longer match their checksums"},
	} {
		if got := c.d.Lost(); got != c.want {
			t.Errorf("Lost() = %q, want %q", got, c.want)
		}
	}
	inner := errors.New("chunk 7: truncated")
	d := &cairn.Damaged{Session: "s", Generation: 1, First: 1, Last: 2, Err: inner}
	if !errors.Is(d, inner) || d.Error() != "session s, lines 1–2 of generation 1: chunk 7: truncated" {
		t.Errorf("Error() = %q, errors.Is(cause) = %v", d.Error(), errors.Is(d, inner))
	}
}
