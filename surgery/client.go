package surgery

import (
	"context"
	"encoding/json"

	"github.com/cairn-dev/cairn"
)

// Window returns the context window of a model: 1M tokens when its name
// says so ("[1m]", "-1m"), else 200k.
func Window(model string) int64 {
	if containsFold(model, "1m") {
		return 1_000_000
	}
	return DefaultWindow
}

// DefaultBudget is the budget an operation fits in unless told: half the
// model's window.
func DefaultBudget(model string) int64 { return Window(model) / 2 }

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		match := true
		for j := 0; j < len(sub); j++ {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// facts are what a session's lines say about the client that wrote it.
type facts struct {
	model    string
	overhead int64 // tokens its requests carry besides the conversation
}

// facts reads a session's first request: its model, and its usage minus
// the conversation before it is the client's overhead; when the output is
// for Codex or Gemini CLI ([Limits].Client), the overhead is that client's.
func (st Store) facts(ctx context.Context, s *cairn.Session) (facts, error) {
	fc, err := st.sessionFacts(ctx, s)
	switch st.Limits.Client {
	case cairn.AgentCodex:
		fc.overhead = cairn.CodexRequestOverhead
	case cairn.AgentOpencode:
		fc.overhead = cairn.OpencodeRequestOverhead
	case cairn.AgentGemini:
		fc.overhead = cairn.GeminiRequestOverhead
	case cairn.AgentPi:
		fc.overhead = cairn.PiRequestOverhead
	}
	return fc, err
}

// sessionFacts reads what a Claude Code session's first request says about
// its client. A pi session's lines are pi's entries, none a Claude Code
// request: they are not read.
func (st Store) sessionFacts(ctx context.Context, s *cairn.Session) (facts, error) {
	fc := facts{overhead: cairn.DefaultRequestOverhead}
	if s.Agent == cairn.AgentPi {
		return fc, nil
	}
	lines, err := st.Lines.FindLines(ctx, s.ID, 1, 400)
	if err != nil {
		return fc, err
	}
	var conv int64
	for _, l := range lines {
		if l.Type != "user" && l.Type != "assistant" {
			continue
		}
		var e struct {
			IsSidechain bool `json:"isSidechain"`
			Message     struct {
				Model   string          `json:"model"`
				Content json.RawMessage `json:"content"`
				Usage   *struct {
					Input         int64 `json:"input_tokens"`
					CacheRead     int64 `json:"cache_read_input_tokens"`
					CacheCreation int64 `json:"cache_creation_input_tokens"`
				} `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(l.Raw, &e) != nil || e.IsSidechain {
			continue
		}
		if l.Type == "assistant" && e.Message.Usage != nil {
			fc.model = e.Message.Model
			if u := e.Message.Usage.Input + e.Message.Usage.CacheRead + e.Message.Usage.CacheCreation; u > conv {
				fc.overhead = min(max(u-conv, cairn.DefaultRequestOverhead), cairn.MaxRequestOverhead)
			}
			return fc, nil
		}
		conv += int64(float64(len(e.Message.Content))/cairn.CharsPerToken) + cairn.BlockOverheadTokens
	}
	return fc, nil
}
