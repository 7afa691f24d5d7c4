package sqlite

import (
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestCodes: every kind and role cairn knows is stored as a number and
// read back as itself, one this cairn does not know as its text; the SQL
// that names the tool-use code (blocks_tool_use and the counts it serves)
// names kindToolUse's.
func TestCodes(t *testing.T) {
	kinds := []cairn.BlockKind{cairn.UserText, cairn.AssistantText, cairn.Thinking, cairn.ToolUse, cairn.ToolResult,
		cairn.MetaText, cairn.CompactionBlock}
	seen := map[any]bool{}
	for _, k := range kinds {
		c := kindCode(k)
		n, ok := c.(int)
		if !ok || seen[c] {
			t.Errorf("kind %s stored as %#v: want a number of its own", k, c)
		}
		seen[c] = true
		if got := kindOf(int64(n)); got != k {
			t.Errorf("kind %s reads back as %q", k, got)
		}
	}
	if c := kindCode("hologram"); c != "hologram" || kindOf(c) != "hologram" {
		t.Errorf("an unknown kind is stored as %#v", c)
	}
	for _, r := range []string{"user", "assistant", "system"} {
		c, ok := roleCode(r).(int)
		if !ok || roleOf(int64(c)) != r {
			t.Errorf("role %s stored as %#v", r, roleCode(r))
		}
	}
	if c := roleCode("developer"); c != "developer" || roleOf(c) != "developer" {
		t.Errorf("an unknown role is stored as %#v", c)
	}
	if kindCode(cairn.ToolUse) != 4 {
		t.Errorf("tool-use is %v; blocks_tool_use, sessionToolCalls and findRounds name 4", kindCode(cairn.ToolUse))
	}
}

// TestIDCodes: a harness's tool-call and message ids are stored in fewer
// bytes and read back as themselves, leading zeros included; any other
// id is stored as its text.
func TestIDCodes(t *testing.T) {
	for _, id := range []string{"toolu_01A09q90qw90lq917835lq9", "msg_01QdKEzwwjhMrbE13LjZjnMA", "toolu_0000", "call_z", "srvtoolu_01ab"} {
		c, ok := idCode(id).([]byte)
		if !ok || len(c) >= len(id) {
			t.Errorf("%s stored as %#v: want fewer bytes", id, idCode(id))
		}
		if got := idOf(c); got != id {
			t.Errorf("%s reads back as %q", id, got)
		}
	}
	for _, id := range []string{"", "toolu_", "toolu_01-ab", "call_ab_cd", "fc_123", "0b1e0000-0000-4000-8000-00000000b1b1", "tööl_1"} {
		if c := idCode(id); c != id || idOf(c) != id {
			t.Errorf("%q stored as %#v: want its text", id, c)
		}
	}
}

// bigCode is idCode as the stores written before computed it, with
// math/big: the bytes idCode writes must stay those.
func bigCode(id string) any {
	for i, p := range idPrefixes {
		tail, ok := strings.CutPrefix(id, p)
		if !ok || tail == "" || len(tail) > 255 {
			continue
		}
		n := new(big.Int)
		for j := range len(tail) {
			k := strings.IndexByte(base62, tail[j])
			if k < 0 {
				return id
			}
			n.Mul(n, big.NewInt(62)).Add(n, big.NewInt(int64(k)))
		}
		return append([]byte{byte(i), byte(len(tail))}, n.Bytes()...)
	}
	return id
}

func FuzzIDCode(f *testing.F) {
	for _, s := range []string{"toolu_01A09q90qw90lq917835lq9", "msg_0", "call_", "x", "toolu_0000", "msg_" + strings.Repeat("z", 255)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		c := idCode(id)
		if got := idOf(c); got != id {
			t.Fatalf("%q reads back as %q", id, got)
		}
		if want := bigCode(id); !reflect.DeepEqual(c, want) {
			t.Fatalf("%q stored as %#v, as %#v before", id, c, want)
		}
	})
}
