package uuid

import (
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id := New()
		if !Valid(id) || id[14] != '4' || !strings.ContainsRune("89ab", rune(id[19])) || seen[id] {
			t.Fatalf("New() = %q: want a fresh version 4 uuid", id)
		}
		seen[id] = true
	}
	for _, s := range []string{"", "0000000-0000-4000-8000-000000000000", "0F8FAD5B-D9CB-469F-A165-70867728950E", "0f8fad5b-d9cb-469f-a165-70867728950e\n"} {
		if Valid(s) {
			t.Errorf("Valid(%q) = true", s)
		}
	}
}
