package cairn

import "unicode/utf8"

// Token estimates. What a client sends is its own system prompt and tool
// definitions (the overhead) followed by the conversation; the conversation
// is estimated from the text of its blocks. The ratio and the per-block cost
// are calibrated against the usage the transcripts record
// (surgery's TestEstimateCalibration prints the error).
const (
	// CharsPerToken is how many characters of conversation make one token:
	// sessions of agents are mostly code, JSON and paths, denser than prose
	// (2.5 leaves the long real sessions 4–7% under what the client
	// recorded, the short ones within 16% over, overhead included).
	CharsPerToken = 2.5
	// BlockOverheadTokens is what a block costs besides its text: its type,
	// ids and the message framing around it.
	BlockOverheadTokens = 8
	// DefaultRequestOverhead is what Claude Code sends besides the
	// conversation (system prompt, tool definitions) when a session does not
	// record it (its first request's usage minus its first prompt), and the
	// least assumed when it does: any supported client may resume the
	// output, and the oldest sends the most (no MCP server: ~30,000 tokens
	// with 2.1.330, ~43,000 with 2.1.197; internal/claudetest's
	// TestResumeWithinBudget).
	DefaultRequestOverhead = 45_000
	// MaxRequestOverhead is the most a session's first request is believed
	// to carry besides its conversation: a first request that reports more
	// (a session whose first reply already held a long context it does not
	// record) says nothing about the client.
	MaxRequestOverhead = 80_000
	// CodexRequestOverhead is what Codex CLI sends besides the conversation
	// when it resumes a rollout: its instructions and permissions as
	// developer messages, the environment context, the tool definitions.
	// Codex 0.169.0 sends about 39,500 bytes of them with no MCP server
	// (internal/codextest's TestResumeWithinBudget), 16,000 tokens at
	// CharsPerToken; a rollout records no usage to read it from.
	CodexRequestOverhead = 16_000
	// OpencodeRequestOverhead is what opencode sends besides the
	// conversation: its system prompt (9,721 bytes from 1.18.33, 10,188
	// from 1.1.65) and its tool declarations (21,144 bytes of 10 tools from
	// 1.18.33, 36,698 of 11 from 1.1.65), measured on the requests it sent a
	// stand-in provider (internal/opencodetest). The larger, 1.1.65's
	// 46,886 bytes, is 18,754 tokens at CharsPerToken: a budget fitted with
	// it holds for every supported release (1.18.33's is 12,346).
	OpencodeRequestOverhead = 19_000
	// GeminiRequestOverhead is what Gemini CLI sends besides the
	// conversation when it resumes a session: its system instruction, the
	// session context it puts first (date, OS, the folder's tree) and the
	// tool declarations. 0.61.0 sends 47,650 bytes of them in a near-empty
	// folder (19,060 tokens at CharsPerToken), 0.30.0 32,545 (13,018)
	// (internal/geminitest's TestResumeWithinBudget); a session records no
	// usage of them alone.
	GeminiRequestOverhead = 20_000
	// PiRequestOverhead is what pi sends besides the conversation: its
	// system prompt (the tools' guidelines, the date and working
	// directory) and its four tools' declarations: 5,465 bytes from 0.73.1
	// (2,186 tokens at CharsPerToken), 3,533 from 0.27.9 (1,413), on the
	// requests that resumed a revive (internal/pitest's TestResumeExport),
	// with room for a project's AGENTS.md.
	PiRequestOverhead = 3_000
)

// EstimateTokens returns the estimated tokens of text.
func EstimateTokens(text string) int64 {
	return int64(float64(utf8.RuneCountInString(text))/CharsPerToken + 0.5)
}

// BlockTokens returns the estimated tokens a block adds to a request: its
// content and its framing.
func BlockTokens(b *Block) int64 {
	return EstimateTokens(b.Content) + BlockOverheadTokens
}

// BlocksTokens returns the estimated tokens of blocks.
func BlocksTokens(blocks []*Block) int64 {
	var n int64
	for _, b := range blocks {
		n += BlockTokens(b)
	}
	return n
}
