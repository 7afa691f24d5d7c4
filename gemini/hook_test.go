package gemini

import "testing"

// TestHookPrompt pins that the context the client puts in a BeforeAgent
// prompt (hooks' <hook_context>, its own <session_context>) is not read as
// the user's words, wherever it stands, and that the user's words are
// kept whole.
func TestHookPrompt(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"fix the login form", "fix the login form"},
		{"<hook_context>&lt;context&gt;\n- a\n- b\n- c\n&lt;/context&gt;</hook_context>\n\nSay hello.", "Say hello."},
		{"<session_context>\n- dir\n  - sub\n</session_context><hook_context>- one\n- two</hook_context>\n\n1. add login\n2. add logout\n3. test", "1. add login\n2. add logout\n3. test"},
		{"first <hook_context>- x</hook_context> then <hook_context>- y</hook_context> last", "first  then  last"},
		{"<hook_context>- cut short", ""},
		{"a </hook_context> stray end", "a </hook_context> stray end"},
	} {
		if got := HookPrompt(c.in); got != c.want {
			t.Errorf("HookPrompt(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
