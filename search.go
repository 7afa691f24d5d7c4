package cairn

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// A SearchQuery asks the full-text index for rounds. The index covers
// what was said and done: user and assistant text, compactions, tool calls
// (the tool's name and its input: command, path, pattern…) and tool
// results (output, error text), each as [IndexText] gives it; not thinking,
// meta text or an inline subagent's blocks.
type SearchQuery struct {
	Text      string // words; FTS5/tsquery syntax is not exposed
	SessionID string
	Project   string
	Agent     string // the harness that wrote the session: AgentClaudeCode, AgentCodex, AgentGemini, AgentOpencode
	Since     time.Time
	Until     time.Time
	Limit     int

	// Kinds, when set, keeps the blocks of these kinds only: the user's
	// words (UserText), the agent's (AssistantText), its calls (ToolUse)
	// or their output (ToolResult).
	Kinds []BlockKind
	// Tool, when set, keeps the calls and results of this tool only.
	Tool string

	// NoSurgery leaves out hits in sessions cairn's own surgery cut (they
	// repeat their sources' rounds), unless SessionID names one. What was
	// written in such a session after the store first held it (its
	// CreatedAt: the export is registered as it is written) is the work of
	// whoever resumed it, and is kept.
	NoSurgery bool

	// Steps returns at most one hit per step (the prompt counting as step
	// 0) instead of one per round: a long autonomous session is one round
	// of hundreds of steps, and a command is found at its own.
	Steps bool

	// Accept, when set, is asked of each matching block's [IndexText];
	// a block it refuses is no hit. A redacted view refuses a block that
	// matched only through a secret, wherever the secret lies in it.
	Accept func(text string) bool
}

// A Hit is one round that matched, at the step of its best block, with a
// snippet whose matches are wrapped in [HighlightStart] and [HighlightEnd].
type Hit struct {
	SessionID string    `json:"session_id"`
	Project   string    `json:"project,omitempty"`
	RoundSeq  int       `json:"round"`
	Step      int       `json:"step"` // as [StepCounter] numbers it: 0 is the round's prompt
	Ref       string    `json:"ref"`  // ROUND.STEP, or ROUND for the prompt: what inject and show take
	Timestamp time.Time `json:"timestamp"`
	Kind      BlockKind `json:"kind"`
	Tool      string    `json:"tool,omitempty"` // a tool call's or result's tool
	Snippet   string    `json:"snippet"`
	Rank      float64   `json:"rank"`
}

// StepRef returns where a step is, as inject takes it: "7.12", or "7" for
// step 0, the round's prompt.
func StepRef(round, step int) string {
	if step <= 0 {
		return strconv.Itoa(round)
	}
	return strconv.Itoa(round) + "." + strconv.Itoa(step)
}

// IndexChars is how much of a block the search index holds: the first
// IndexChars characters of its [IndexText]. A tool result of megabytes is
// found by its start, and an import does not tokenize all of it.
const IndexChars = 100000

// IndexText returns what the search index holds of a block of kind k, its
// tool's name and its content, before [SearchText]: a tool call is its
// tool's name and the text of its input's values (the command, the path,
// the pattern, an edit's strings, one per line, without the JSON's keys,
// quotes and escapes); any other block is its content. At most
// [IndexChars] characters are kept. Search cuts a tool call's snippet from
// the same text.
func IndexText(k BlockKind, tool, content string) string {
	if k == ToolUse {
		content = toolText(tool, content)
	}
	return TruncateChars(content, IndexChars)
}

// toolText is a tool call's name and the string values of its JSON input,
// in order; input that is not JSON is kept as it is.
func toolText(tool, input string) string {
	var b strings.Builder
	b.WriteString(tool)
	dec := json.NewDecoder(strings.NewReader(input))
	// The objects and arrays open, innermost last, each an object's with
	// whether its next token is a key. Keys are the tool's vocabulary
	// (command, file_path), the same in every call: only values say what
	// a call did.
	type open struct{ object, wantKey bool }
	var stack []open
	for b.Len() < 4*IndexChars {
		t, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return tool + "\n" + input
		}
		var top *open
		if n := len(stack); n > 0 {
			top = &stack[n-1]
		}
		key := top != nil && top.object && top.wantKey
		if top != nil && top.object {
			top.wantKey = !top.wantKey
		}
		switch t := t.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				stack = append(stack, open{object: t == '{', wantKey: t == '{'})
			default:
				stack = stack[:len(stack)-1]
				if n := len(stack); n > 0 && stack[n-1].object {
					stack[n-1].wantKey = true // the closed one was a value
				}
			}
		case string:
			if !key {
				b.WriteByte('\n')
				b.WriteString(t)
			}
		}
	}
	return b.String()
}

// TruncateChars returns at most n characters of s (as SQLite's substr
// counts them).
func TruncateChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// Snippet highlight markers. Edges turn them into ANSI, HTML or Markdown.
const (
	HighlightStart = "\x02"
	HighlightEnd   = "\x03"
)

// Searcher finds rounds by their text.
type Searcher interface {
	// Search returns the best hits for q, at most one per round (per step
	// with q.Steps). Returns EINVALID for an empty query.
	Search(ctx context.Context, q SearchQuery) ([]*Hit, error)
}

// A SearchCounter counts a search's hits without reading them, for a page
// that says how many there are.
type SearchCounter interface {
	// CountHits returns how many rounds (steps with q.Steps) hold a block
	// that matches every word of q and passes its filters, counting at
	// most max; more reports that there are more than n, or that the
	// count stopped before knowing (a store bounds what it reads). q.Accept
	// is not applied; phrases (QueryPhrases) are, as Search applies them.
	// q.Limit is not used.
	CountHits(ctx context.Context, q SearchQuery, max int) (n int, more bool, err error)
}

// RoleKinds returns the kinds of blocks a search's role names: whose words
// (user, agent) or which part of a tool call (call, output), as the
// viewer's and cairn search's role filter take it; EINVALID for any other.
func RoleKinds(role string) ([]BlockKind, error) {
	switch role {
	case "user":
		return []BlockKind{UserText}, nil
	case "agent":
		return []BlockKind{AssistantText}, nil
	case "call":
		return []BlockKind{ToolUse}, nil
	case "output":
		return []BlockKind{ToolResult}, nil
	}
	return nil, Errorf(EINVALID, "Role %q: want user, agent, call or output.", role)
}

// QueryPhrases returns the phrases of a search query: the runs of words
// between double quotes ("connection refused"), each as its words joined
// by one space; a quote of one word is that word, no phrase. An unclosed
// quote runs to the end of the query. A hit must hold each phrase's words
// in order, one after the other, each as the store matches a word (SQLite
// stems them) but not as a prefix; every one of them is also a word of
// [QueryWords], which may match as a prefix.
func QueryPhrases(text string) []string {
	var phrases []string
	parts := strings.Split(text, `"`)
	for i := 1; i < len(parts); i += 2 {
		words := QueryWords(strings.ReplaceAll(parts[i], "*", " "))
		if len(words) > 1 {
			phrases = append(phrases, strings.Join(words, " "))
		}
	}
	return phrases
}

// PrefixLen is the length, in characters, from which a query word also
// matches the longer words it begins.
const PrefixLen = 3

// PrefixWord returns the query word w (one of [QueryWords]) as search
// matches it: a word of at least [PrefixLen] letters or digits gains a
// trailing '*', so that auth finds authentication and migrat finds
// migration; a shorter word, a run of CJK characters or emoji, or a word
// already ending in '*' is returned as it is.
func PrefixWord(w string) string {
	if strings.HasSuffix(w, "*") || utf8.RuneCountInString(w) < PrefixLen || strings.IndexFunc(w, isGlyph) >= 0 {
		return w
	}
	return w + "*"
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
