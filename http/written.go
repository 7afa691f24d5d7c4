package http

import (
	"context"
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
)

// A fileCall is a call that wrote a file, as any harness names it: a whole
// file's text (Claude Code's Write, Gemini CLI's write_file, opencode's and
// pi's write) or replacements in it (Edit, MultiEdit, replace, edit).
type fileCall struct {
	Path    string
	Content *string // the whole text written; nil for an edit
	Edits   []replacement
}

// A replacement is one old text an edit replaced by a new one.
type replacement struct {
	Old, New string
	All      bool
}

// readFileCall reads a call's input as a fileCall; ok is false for a call
// that writes no file, or whose input does not say which.
func readFileCall(tool, input string) (fileCall, bool) {
	var in struct {
		FilePath     string  `json:"file_path"`
		FilePathOC   string  `json:"filePath"`
		Path         string  `json:"path"`
		AbsolutePath string  `json:"absolute_path"`
		Content      *string `json:"content"`
		OldString    string  `json:"old_string"`
		OldStringOC  string  `json:"oldString"`
		OldText      string  `json:"oldText"`
		NewString    string  `json:"new_string"`
		NewStringOC  string  `json:"newString"`
		NewText      string  `json:"newText"`
		ReplaceAll   bool    `json:"replace_all"`
		ReplaceAllOC bool    `json:"replaceAll"`
		Edits        []struct {
			OldString  string `json:"old_string"`
			OldText    string `json:"oldText"`
			NewString  string `json:"new_string"`
			NewText    string `json:"newText"`
			ReplaceAll bool   `json:"replace_all"`
		} `json:"edits"`
	}
	if json.Unmarshal([]byte(input), &in) != nil {
		return fileCall{}, false
	}
	c := fileCall{Path: first(in.FilePath, in.FilePathOC, in.AbsolutePath, in.Path)}
	if c.Path == "" {
		return fileCall{}, false
	}
	switch tool {
	case "Write", "write_file", "write":
		if in.Content == nil {
			return fileCall{}, false
		}
		c.Content = in.Content
	case "Edit", "replace", "edit":
		if len(in.Edits) == 0 {
			c.Edits = []replacement{{first(in.OldString, in.OldStringOC, in.OldText), first(in.NewString, in.NewStringOC, in.NewText), in.ReplaceAll || in.ReplaceAllOC}}
			break
		}
		fallthrough
	case "MultiEdit":
		for _, e := range in.Edits {
			c.Edits = append(c.Edits, replacement{first(e.OldString, e.OldText), first(e.NewString, e.NewText), e.ReplaceAll})
		}
	default:
		return fileCall{}, false
	}
	return c, true
}

func first(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// apply makes an edit's replacements in text; ok is false when an old text
// is not found in it, or found more than once where the edit replaced one
// (the tool would have refused: the text is not the file's).
func (c fileCall) apply(text string) (string, bool) {
	for _, e := range c.Edits {
		n := strings.Count(text, e.Old)
		if e.Old == "" || n == 0 || (n > 1 && !e.All) {
			return "", false
		}
		text = strings.ReplaceAll(text, e.Old, e.New)
	}
	return text, true
}

// maxWrittenRounds bounds the rounds read to find a file's earlier text.
const maxWrittenRounds = 50

// previousText returns a file's text as the session's calls left it before
// the call at index in round seq: the last whole text written to it, with
// the edits applied to it since, each found by the search index (the
// file's name in the call's input) and read from its round. ok is false
// when no call before wrote the whole file, when an edit since does not
// apply to it, or when a call's input was cut by the page.
func (s *Server) previousText(ctx context.Context, id, file string, seq, index int) (text string, ok bool, err error) {
	if s.Searcher == nil {
		return "", false, nil
	}
	hits, err := s.Searcher.Search(ctx, cairn.SearchQuery{Text: `"` + strings.ReplaceAll(path.Base(file), `"`, " ") + `"`, SessionID: id,
		Kinds: []cairn.BlockKind{cairn.ToolUse}, Limit: 10 * maxWrittenRounds})
	if err != nil {
		return "", false, err
	}
	var seqs []int
	for _, h := range hits {
		if h.RoundSeq <= seq && !slices.Contains(seqs, h.RoundSeq) {
			seqs = append(seqs, h.RoundSeq)
		}
	}
	slices.Sort(seqs)
	if len(seqs) > maxWrittenRounds {
		seqs = seqs[len(seqs)-maxWrittenRounds:]
	}
	// The calls on the file before the call, in order, and the ones refused.
	var calls []fileCall
	refused := map[string]bool{}
	var ids []string
	for _, r := range seqs {
		rd, _, err := s.Rounds.FindRoundPage(ctx, id, r, cairn.BlockPage{Limit: MaxPageBlocks, Bytes: MaxPageBytes})
		if err != nil {
			return "", false, err
		}
		for _, b := range rd.Blocks {
			if b.RoundSeq == seq && b.Index >= index {
				break
			}
			if b.Kind == cairn.ToolResult && b.IsError && b.ToolID != "" {
				refused[b.ToolID] = true
			}
			if b.Kind != cairn.ToolUse {
				continue
			}
			c, isFile := readFileCall(b.ToolName, b.Content)
			if !isFile || c.Path != file {
				continue
			}
			if b.Size > 0 {
				c.Content, c.Edits = nil, nil // cut by the page: its text is not known
			}
			calls = append(calls, c)
			ids = append(ids, b.ToolID)
		}
	}
	start := -1
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Content != nil && !refused[ids[i]] {
			start = i
			break
		}
		if calls[i].Content == nil && calls[i].Edits == nil {
			return "", false, nil
		}
	}
	if start < 0 {
		return "", false, nil
	}
	text = *calls[start].Content
	for i := start + 1; i < len(calls); i++ {
		if refused[ids[i]] {
			continue
		}
		if text, ok = calls[i].apply(text); !ok {
			return "", false, nil
		}
	}
	return text, true, nil
}
