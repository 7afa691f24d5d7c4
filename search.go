package cairn

import (
	"context"
	"strings"
	"time"
	"unicode"
)

// A SearchQuery asks the full-text index for rounds. The index covers
// user-text and assistant-text blocks only: the published text of a round,
// not its thinking or tool cycles.
type SearchQuery struct {
	Text      string // words; FTS5/tsquery syntax is not exposed
	SessionID string
	Project   string
	Agent     string // the harness that wrote the session: AgentClaudeCode, AgentCodex
	Since     time.Time
	Until     time.Time
	Limit     int

	// NoSurgery leaves out hits in sessions cairn's own surgery cut (they
	// repeat their sources' rounds), unless SessionID names one.
	NoSurgery bool
}

// A Hit is one round that matched, with a snippet whose matches are wrapped
// in [HighlightStart] and [HighlightEnd].
type Hit struct {
	SessionID string    `json:"session_id"`
	Project   string    `json:"project,omitempty"`
	RoundSeq  int       `json:"round"`
	Timestamp time.Time `json:"timestamp"`
	Kind      BlockKind `json:"kind"`
	Snippet   string    `json:"snippet"`
	Rank      float64   `json:"rank"`
}

// Snippet highlight markers. Edges turn them into ANSI, HTML or Markdown.
const (
	HighlightStart = "\x02"
	HighlightEnd   = "\x03"
)

// Searcher finds rounds by their text.
type Searcher interface {
	// Search returns the best hits for q, at most one per round. Returns
	// EINVALID for an empty query.
	Search(ctx context.Context, q SearchQuery) ([]*Hit, error)
}

// QueryWords returns the words a search query asks for: runs of letters,
// digits, emoji and '_', a trailing '*' kept (the word is a prefix).
// Nothing else in the query means anything, so no store reads user input
// as syntax.
func QueryWords(text string) []string {
	var words []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !IsEmoji(r) && r != '*' && r != '_'
	}) {
		prefix := strings.HasSuffix(w, "*")
		if w = strings.Trim(w, "*"); w == "" {
			continue
		}
		if prefix {
			w += "*"
		}
		words = append(words, w)
	}
	return words
}
