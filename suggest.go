package cairn

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Frame suggestions (seed 003: "the system can suggest frame operations
// when patterns are detected"). Each rule looks at the current frame, its
// rounds and the prompt just submitted, and proposes one operation with
// its reason; the UserPromptSubmit hook shows a rule's suggestion at most
// once per frame, in one line, and "cairn suggest" lists them all.
//
//	size    the frame's rounds exceed SuggestMaxRounds rounds or
//	        SuggestMaxLines transcript lines: pop it with its results (or
//	        push the rest as a child), so its history stops growing
//	area    the steps since the rule last looked read or wrote files in
//	        two or more folders the frame had not touched (its artifacts,
//	        its earlier steps): a context switch, push a child frame
//	prompt  the prompt asks for work (it starts with or contains a task
//	        verb) and shares no word with the frame's title and criteria:
//	        push a frame for it, or pop this one first
//	plan    the prompt (at most 1,500 characters) lists three or more
//	        tasks (numbered or bulleted lines, or "then" twice): plan them
//	        as frames

// Suggestion kinds: the rule that made it.
const (
	SuggestSize   = "size"
	SuggestArea   = "area"
	SuggestPrompt = "prompt"
	SuggestPlan   = "plan"
)

// Thresholds of the size rule.
const (
	SuggestMaxRounds = 30
	SuggestMaxLines  = 1500
)

// A Suggestion proposes a frame operation and says why.
type Suggestion struct {
	Kind   string `json:"kind"`
	Op     string `json:"op"` // push, pop or plan
	Frame  string `json:"frame,omitempty"`
	Reason string `json:"reason"`
}

// Line renders s as the one line a hook adds to the agent's context.
func (s Suggestion) Line() string {
	cmd := map[string]string{
		"push": `cairn push "TITLE" --criteria "…"`,
		"pop":  "cairn pop, which drafts the results from its rounds",
		"plan": `cairn plan "TITLE" --criteria "…" for each`,
	}[s.Op]
	return fmt.Sprintf("cairn suggests %s: %s. Run: %s", s.Op, s.Reason, cmd)
}

// SuggestBySize proposes popping f when its rounds exceed the size rule's
// thresholds; nil otherwise.
func SuggestBySize(f *Frame, rounds []*Round) *Suggestion {
	lines := 0
	for _, r := range rounds {
		lines += r.LastLine - r.FirstLine + 1
	}
	if len(rounds) <= SuggestMaxRounds && lines <= SuggestMaxLines {
		return nil
	}
	return &Suggestion{Kind: SuggestSize, Op: "pop", Frame: f.ID,
		Reason: fmt.Sprintf("frame %s (%s) has %d rounds, %d transcript lines: finish it, or push what remains as a child", f.ID, f.Title, len(rounds), lines)}
}

// TouchedPaths returns the files a round's tool calls read or wrote, in
// order, without repeats.
func TouchedPaths(blocks []*Block) []string {
	var out []string
	for _, b := range blocks {
		if b.Kind != ToolUse || b.Sidechain {
			continue
		}
		for _, k := range []string{"file_path", "notebook_path", "path"} {
			if p := inputString(b.Content, k); p != "" && !containsString(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// Area names the folder a path belongs to for the area rule: its first
// two folders under root ("internal/auth"), or its folder when it is
// outside root.
func Area(root, path string) string {
	rel := relPath(root, path)
	dir := filepath.ToSlash(filepath.Dir(rel))
	if filepath.IsAbs(rel) {
		return dir
	}
	parts := strings.Split(dir, "/")
	return strings.Join(parts[:min(2, len(parts))], "/")
}

// SuggestByArea proposes pushing a child of f when the steps given (the
// paths each step read or wrote, in order: the rounds since the rule last
// looked) reach two or more areas not in known (the areas of f's
// artifacts and of what it touched before). It returns the suggestion
// (nil if none) and known with the new areas added. A frame that knows no
// area yet learns those of its first step with files without a
// suggestion.
func SuggestByArea(f *Frame, root string, known []string, steps [][]string) (*Suggestion, []string) {
	var fresh []string
	for _, paths := range steps {
		learning := len(known) == 0
		for _, p := range paths {
			a := Area(root, p)
			if a == "." || containsString(known, a) {
				continue
			}
			known = append(known, a)
			if !learning {
				fresh = append(fresh, a)
			}
		}
	}
	if len(fresh) < 2 {
		return nil, known
	}
	if len(fresh) > 4 {
		fresh = append(fresh[:4], fmt.Sprintf("%d more", len(fresh)-4))
	}
	return &Suggestion{Kind: SuggestArea, Op: "push", Frame: f.ID,
		Reason: fmt.Sprintf("the work moved to %s, outside what frame %s (%s) touched before: push a child frame for it", strings.Join(fresh, ", "), f.ID, f.Title)}, known
}

// StepPaths returns, for each step of a round, the files it read or wrote:
// what [SuggestByArea] takes.
func StepPaths(r *Round) [][]string {
	var out [][]string
	for _, s := range Steps(r.Blocks, r.LastLine) {
		if p := TouchedPaths(s.Blocks); len(p) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// taskVerb finds a request for work in a prompt.
var taskVerb = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(add|implement|fix|write|build|create|refactor|migrate|update|remove|delete|rename|test|deploy|investigate|debug|design|rewrite|port|set up|setup|configure|optimi[sz]e|document)\b`)
})

// stopWord reports whether w is left out when comparing a prompt with a
// frame.
func stopWord(w string) bool {
	switch w {
	case "the", "and", "for", "with", "that", "this", "from", "into",
		"then", "also", "please", "now", "can", "you", "should", "what",
		"have", "are", "was", "all", "its", "our", "not", "but":
		return true
	}
	return false
}

var wordPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\p{L}\p{N}]+`) })

// words returns the lower-case content words of s: three letters or more,
// not a stop word, a crude stem (a trailing "s", "ed", "ing" dropped).
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range wordPattern().FindAllString(strings.ToLower(s), -1) {
		if len([]rune(w)) < 3 || stopWord(w) {
			continue
		}
		for _, suf := range []string{"ing", "ed", "es", "s"} {
			if t, ok := strings.CutSuffix(w, suf); ok && len(t) >= 3 {
				w = t
				break
			}
		}
		out[w] = true
	}
	return out
}

// SuggestByPrompt proposes pushing a frame when prompt asks for work that
// shares no content word with f's title and success criteria (at least
// four content words, one of them a task verb); nil otherwise.
func SuggestByPrompt(f *Frame, prompt string) *Suggestion {
	pw := words(prompt)
	if len(pw) < 4 || !taskVerb().MatchString(prompt) {
		return nil
	}
	fw := words(f.Title + " " + f.SuccessCriteria + " " + f.SuccessCriteriaCompacted)
	for w := range pw {
		if fw[w] {
			return nil
		}
	}
	return &Suggestion{Kind: SuggestPrompt, Op: "push", Frame: f.ID,
		Reason: fmt.Sprintf("this prompt asks for work unlike frame %s (%s): push a frame for it, or pop %s first if it is done", f.ID, f.Title, f.ID)}
}

var listItem = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*(\d+[.)]|[-*•])\s+\S`) })
var thenWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bthen\b`) })

// maxPlanPrompt is the longest prompt the plan rule reads: a longer one
// (a pasted document, a compaction's instructions) lists things, not
// tasks.
const maxPlanPrompt = 1500

// SuggestByPlan proposes planning frames when prompt lists three or more
// tasks; nil otherwise. frameID may be "" (no frame in progress).
func SuggestByPlan(frameID, prompt string) *Suggestion {
	if len([]rune(prompt)) > maxPlanPrompt {
		return nil
	}
	items := len(listItem().FindAllString(prompt, -1))
	if items < 3 && len(thenWord().FindAllString(prompt, -1)) < 2 {
		return nil
	}
	n := max(items, 3)
	return &Suggestion{Kind: SuggestPlan, Op: "plan", Frame: frameID,
		Reason: fmt.Sprintf("this prompt lists %d or more tasks: plan them as frames, with --depends for their order", n)}
}
