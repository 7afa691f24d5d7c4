package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHookInput_Bounded: hook input over the 1 MiB cairn reads says so,
// and input that is not JSON says where, in cairn's words, not Go's
// decoder's. Before: "unexpected end of JSON input" for the first, the
// decoder's text for every other.
func TestHookInput_Bounded(t *testing.T) {
	big := `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","pad":"` + strings.Repeat("x", 1<<20) + `"}`
	for _, c := range []struct{ name, stdin, says string }{
		{"OverBound", big, "Hook input is over 1 MiB, more than cairn reads"},
		{"CutShort", `{"session_id":"s1"`, "it ends, after 18 bytes, before the object does"},
		{"Garbage", `{"session_id": s1}`, "it is not valid JSON at byte 16 of 18"},
		{"WrongType", `{"session_id": 7}`, `its field "session_id" holds a JSON number, which it may not`},
		{"NotObject", `[1]`, "it is a JSON array"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, home := t.TempDir(), t.TempDir()
			var out, errb bytes.Buffer
			err := hookMain(ws, home, c.stdin, &out, &errb).Run(context.Background(), []string{"hook", "SessionStart"})
			if err == nil || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("hook SessionStart: %v, want %q", err, c.says)
			}
			for _, decoder := range []string{"unexpected end of JSON input", "invalid character", "cannot unmarshal", "Go struct"} {
				if strings.Contains(err.Error(), decoder) {
					t.Fatalf("hook SessionStart shows the decoder's text: %v", err)
				}
			}
		})
	}
}
