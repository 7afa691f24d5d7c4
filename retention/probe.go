// Package retention measures what a materialization keeps of a session:
// probes derived from the session itself (files edited, commands run and
// their figures, errors met, decisions stated, the user's constraints),
// each judged in context, one hop away (an index line names its round or
// step, and inject yields it) or lost.
//
// # Probes
//
// A probe is a question a continuing agent would need answered and the
// text that answers it, taken verbatim from one step of one round. Probes
// are made by fixed rules, no model involved, so the same session always
// gives the same probes:
//
//   - file: each file a Write, Edit, MultiEdit or NotebookEdit call changed
//     (its path, relative to the project), once per path, at the last step
//     that changed it;
//   - command: each distinct Bash command that ran (its first 80
//     characters);
//   - number: figures a command printed: a count of tests passed or failed,
//     a duration, a size or a percentage (at most two per result);
//   - error: each tool result marked as an error (its first line);
//   - decision: sentences of assistant text that state a decision or a
//     conclusion ("decided", "instead of", "root cause", "doesn't support",
//     "depends on", "all 43 tests pass", …);
//   - constraint: sentences of the user's prompts that bind the work
//     ("must", "never", "don't", "only", "make sure", …).
//
// # Judging
//
// A probe is in context when its answer, case and whitespace folded, is a
// substring of the text the client would send. Otherwise it is one hop
// away when the materialization names its round (an index line) or its
// step, so `cairn inject` brings it back; else it is lost.
package retention

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"cairn"
)

// Category groups probes so figures can be set beside the compactor's.
type Category string

// The categories, in the order reports show them.
const (
	File       Category = "file"
	Command    Category = "command"
	Number     Category = "number"
	Error      Category = "error"
	Decision   Category = "decision"
	Constraint Category = "constraint"
)

// Categories lists every category in report order.
var Categories = []Category{File, Command, Number, Error, Decision, Constraint}

// A Probe is one question with the text that answers it and where that
// text comes from.
type Probe struct {
	Category Category `json:"category"`
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Round    int      `json:"round"`
	Step     int      `json:"step"` // 0: the round's prompt
}

// Ref is the probe's place as `inject` takes it: ROUND.STEP, or ROUND for
// the prompt.
func (p *Probe) Ref() string {
	if p.Step == 0 {
		return fmt.Sprint(p.Round)
	}
	return fmt.Sprintf("%d.%d", p.Round, p.Step)
}

// answerLen is how much of a command, an error line or a sentence a probe
// asks for: enough to be specific, short enough to survive a summary that
// quotes it.
const answerLen = 80

var (
	figure = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b\d+(?:[.,]\d+)?\s?(?:ms|µs|ns|s|sec|seconds|minutes|min|kb|mb|gb|kib|mib|gib|%)(?:\W|$)|\b\d+ (?:passed|failed|tests?|errors?|warnings?|skipped|files? changed|insertions?|deletions?)\b`)
	})

	decisionWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(decided|decision|instead(?: of)?|rather than|root cause|the cause|the fix is|the (?:problem|issue|reason) (?:is|was)|conclusion|turns out|i'll use|we'll use|let's use|going with|chose|because|doesn't support|does not support|won't work|will fail|depends on|i need to (?:rewrite|use|add|change|fix)|is missing|all \d+ tests? pass|tests? pass(?:es|ed)?|all green|clean compile)\b`)
	})

	constraintWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(must|never|don't|do not|always|only|make sure|should not|shouldn't|without)\b`)
	})

	sentenceEnd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[.!?](?:\s|$)|\n`) })
)

// Probes derives the probes of a session from its rounds, which must carry
// their blocks. Probes come in round, step and block order; a file or
// command seen twice is probed once, where it was last seen (for a file)
// or first run (for a command). A file under the session's project is
// asked for by its path relative to it, as a summary would name it.
func Probes(s *cairn.Session, rounds []*cairn.Round) []*Probe {
	project := strings.TrimSuffix(s.Project, "/") + "/"
	var out []*Probe
	files := map[string]int{} // path → index in out
	commands := map[string]bool{}
	for _, r := range rounds {
		for _, b := range r.Blocks {
			if b.Kind == cairn.UserText && !b.Sidechain {
				for _, s := range sentences(b.Content, constraintWords()) {
					out = append(out, &Probe{Category: Constraint, Question: fmt.Sprintf("What did the user require in round %d?", r.Seq), Answer: s, Round: r.Seq})
				}
			}
		}
		for _, st := range cairn.Steps(r.Blocks, r.LastLine) {
			calls := map[string]*cairn.Block{}
			for _, b := range st.Blocks {
				if b.Sidechain {
					continue
				}
				at := &Probe{Round: r.Seq, Step: st.Seq}
				switch b.Kind {
				case cairn.AssistantText:
					for _, s := range sentences(b.Content, decisionWords()) {
						p := *at
						p.Category, p.Question, p.Answer = Decision, fmt.Sprintf("What was decided or concluded at %s?", at.Ref()), s
						out = append(out, &p)
					}
				case cairn.ToolUse:
					calls[b.ToolID] = b
					arg := cairn.ToolArg(b.ToolName, b.Content)
					switch {
					case cairn.WriteField(b.ToolName) != "":
						path := strings.TrimPrefix(fullArg(b.Content, "file_path", "notebook_path"), project)
						if path == "" {
							continue
						}
						p := *at
						p.Category, p.Question, p.Answer = File, fmt.Sprintf("Which file did %s change with %s?", at.Ref(), b.ToolName), path
						if i, ok := files[path]; ok {
							out[i] = &p
							continue
						}
						files[path] = len(out)
						out = append(out, &p)
					case b.ToolName == "Bash":
						cmd := clip(fullArg(b.Content, "command"), answerLen)
						if cmd == "" || commands[cmd] {
							continue
						}
						commands[cmd] = true
						p := *at
						p.Category, p.Question, p.Answer = Command, fmt.Sprintf("What command ran at %s (%s)?", at.Ref(), arg), cmd
						out = append(out, &p)
					}
				case cairn.ToolResult:
					call := calls[b.ToolID]
					if b.IsError {
						first, _, _ := strings.Cut(strings.TrimSpace(b.Content), "\n")
						if first = clip(first, answerLen); first != "" {
							p := *at
							p.Category, p.Question, p.Answer = Error, fmt.Sprintf("What error did %s meet at %s?", b.ToolName, at.Ref()), first
							out = append(out, &p)
						}
						continue
					}
					if call == nil || call.ToolName != "Bash" {
						continue
					}
					for _, f := range figures(b.Content, 2) {
						p := *at
						p.Category, p.Question, p.Answer = Number, fmt.Sprintf("What figure did `%s` report at %s?", cairn.ToolArg("Bash", call.Content), at.Ref()), f
						out = append(out, &p)
					}
				}
			}
		}
	}
	return out
}

// fullArg returns the first of keys present in a tool call's JSON input,
// whole (a path is not previewed: the probe asks for all of it).
func fullArg(input string, keys ...string) string {
	for _, k := range keys {
		if v := cairn.ToolInputString(input, k); v != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// sentences returns the sentences of text that match words, clipped.
func sentences(text string, words *regexp.Regexp) []string {
	var out []string
	for _, s := range splitSentences(text) {
		if len(s) >= 20 && words.MatchString(s) {
			out = append(out, clip(s, answerLen))
		}
	}
	return out
}

func splitSentences(text string) []string {
	var out []string
	for len(text) > 0 {
		loc := sentenceEnd().FindStringIndex(text)
		end := len(text)
		if loc != nil {
			end = loc[1]
		}
		if s := strings.TrimSpace(text[:end]); s != "" && !strings.HasPrefix(s, "```") {
			out = append(out, s)
		}
		text = text[end:]
	}
	return out
}

// figures returns up to n distinct figures of a command's output.
func figures(text string, n int) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range figure().FindAllString(text, -1) {
		m = strings.TrimRight(strings.TrimSpace(m), " \t\n,;:)]}.")
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		out = append(out, m)
		if len(out) == n {
			break
		}
	}
	return out
}

// clip keeps the first n characters of s with whitespace collapsed; cut
// text gets no mark, so that it still matches the text it was cut from.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return strings.TrimSpace(string(r))
}
