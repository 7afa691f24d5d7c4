// Package retention measures what a materialization keeps of a session:
// probes derived from the session itself (files changed, commands run and
// their figures, errors met, decisions stated, the user's prompts, what the
// agent was about to do), each judged in context, one hop away (an entry
// names its step and inject yields it within a bound) or lost.
//
// # Probes
//
// A probe is a question a continuing agent would need answered and the
// text that answers it, taken verbatim from one step of one round (or from
// a round's prompt). Probes are made by fixed rules, no model involved, so
// the same session always gives the same probes:
//
//   - artifact: each file a Write, Edit, MultiEdit or NotebookEdit call
//     changed, or a Bash command deleted or moved away (`rm`, `git rm`,
//     `mv`'s sources), by its path relative to the project, once per path,
//     at the last step that touched it;
//   - command: each distinct Bash command that ran (its first 80
//     characters);
//   - error: each tool result marked as an error: its first line, or, when
//     that line only says `Exit code N`, the first line after it that says
//     more (no probe when none does);
//   - decision: sentences of assistant text that state a decision or a
//     conclusion ("decided", "instead of", "root cause", "doesn't support",
//     "depends on", "all 43 tests pass", …), but not narration of the next
//     move ("Let me …", "Now let me …", "I'll now …");
//   - number: figures a command printed: a count of tests passed or failed,
//     of files changed, a size or a percentage (at most two per result);
//     durations are left out: they differ on every run and match anywhere;
//   - prompt: each prompt of the user: its first sentence (80 characters at
//     most), and each sentence that binds the work ("must", "never",
//     "don't", "only", "make sure", …);
//   - continuation: what the agent was about to do when the session
//     ended: each item of the last todo list it wrote (TodoWrite), and the
//     first 80 characters of its last answer.
//
// Answers under eight characters (a command `ls`, an error `Error`) are
// dropped, save paths and figures, which are specific however short.
//
// The rules that pick decisions are this package's own and stay
// unexported: a summary built from the same rules would score itself.
//
// # Judging
//
// Strictly, a probe is in context when its answer, case and whitespace
// folded, is in the text the output holds for the probe's own step (the
// step kept in full, or a line of cairn's summary that begins with the
// step's ref); it is one hop away when an entry of the output names the
// step (an index line of the step, a run of steps, the round's row) and
// what inject would print for it fits [Variant].HopLimit; else it is lost.
// Leniently, as the first versions of the eval judged, an answer anywhere
// in the text counts, and any name of the round or step is one hop,
// however large its expansion.
package retention

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

// Category groups probes so figures can be set beside the compactor's.
type Category string

// The categories, in the order reports show them.
const (
	Artifact     Category = "artifact"
	Command      Category = "command"
	Error        Category = "error"
	Decision     Category = "decision"
	Number       Category = "number"
	Prompt       Category = "prompt"
	Continuation Category = "continuation"
)

// Categories lists every category in report order.
var Categories = []Category{Artifact, Command, Error, Decision, Number, Prompt, Continuation}

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

// minAnswer is the shortest answer a probe keeps (paths and figures
// excepted): shorter ones match text that has nothing to do with them.
const minAnswer = 8

var (
	figure = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b\d+(?:[.,]\d+)?\s?(?:kb|mb|gb|kib|mib|gib|%)(?:\W|$)|\b\d+ (?:passed|failed|tests?|errors?|warnings?|skipped|files? changed|insertions?|deletions?)\b`)
	})

	decisionWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(decided|decision|instead(?: of)?|rather than|root cause|the cause|the fix is|the (?:problem|issue|reason) (?:is|was)|conclusion|turns out|i'll use|we'll use|let's use|going with|chose|because|doesn't support|does not support|won't work|will fail|depends on|i need to (?:rewrite|use|add|change|fix)|is missing|all \d+ tests? pass|tests? pass(?:es|ed)?|all green|clean compile)\b`)
	})

	// narration is a sentence that says what the agent does next, not
	// what it decided: "Let me check …", "Now let me …", "I'll now …".
	narration = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:(?:now|ok(?:ay)?|good|great|perfect|first|next|then|so|alright)[,.!:]?\s+)*(?:let me|let's (?:check|look|see|run|read|verify|start|try)|i'll now|i will now|i'm going to|i am going to|i'll (?:check|look|read|run|start|verify|try))\b`)
	})

	constraintWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(must|never|don't|do not|always|only|make sure|should not|shouldn't|without)\b`)
	})

	errorWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(errors?|failed|failures?|fatal|panic|exception|cannot|can't|could not|couldn't|not found|no such|denied|undefined|invalid|unexpected|refused|expected)\b|^\*\*`)
	})

	// trivialError is a line of a tool's error that says nothing of its
	// own: the exit code, or that a sibling call failed.
	trivialError = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:exit code:? -?\d+|(?:<tool_use_error>)?sibling tool call errored(?:</tool_use_error>)?)$`)
	})

	sentenceEnd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[.!?](?:\s|$)|\n`) })
)

// Probes derives the probes of a session from its rounds, which must carry
// their blocks. Probes come in round, step and block order, the
// continuation last; a path or command seen twice is probed once, where it
// was last touched (a path) or first run (a command). A path under the
// session's project is asked for relative to it, as a summary would name
// it. Round 0 is probed when it holds work ([surgery.Worked]: a resumed or
// forked file's steps before the first typed prompt), for its steps: no
// prompt was typed in it.
func Probes(s *cairn.Session, rounds []*cairn.Round) []*Probe {
	rounds = worked(rounds)
	project := strings.TrimSuffix(s.Project, "/") + "/"
	var out []*Probe
	paths := map[string]int{} // path → index in out
	commands := map[string]bool{}
	artifact := func(p *Probe, path string) {
		if path = strings.TrimPrefix(path, project); path == "" {
			return
		}
		p.Category, p.Answer = Artifact, path
		if i, ok := paths[path]; ok {
			out[i] = p
			return
		}
		paths[path] = len(out)
		out = append(out, p)
	}
	add := func(p *Probe) {
		if len([]rune(p.Answer)) >= minAnswer {
			out = append(out, p)
		}
	}
	var todos, last *Probe // the continuation: the last todo list and answer
	var todoItems []string
	for _, r := range rounds {
		steps := cairn.Steps(r.Blocks, r.LastLine)
		stepOf := map[*cairn.Block]int{}
		for _, st := range steps {
			for _, b := range st.Blocks {
				stepOf[b] = st.Seq
			}
		}
		first := true
		for _, b := range r.Blocks {
			if b.Kind != cairn.UserText || b.Sidechain {
				continue
			}
			if r.Seq == 0 {
				break // what precedes the first typed prompt: the client's summary, hook output
			}
			at := Probe{Category: Prompt, Round: r.Seq, Step: stepOf[b]}
			seen := map[string]bool{}
			if first && at.Step == 0 {
				first = false
				if ss := splitSentences(b.Content); len(ss) > 0 {
					p := at
					p.Question, p.Answer = fmt.Sprintf("What did the user ask in round %d?", r.Seq), clip(ss[0], answerLen)
					seen[p.Answer] = true
					add(&p)
				}
			}
			for _, s := range sentences(b.Content, constraintWords()) {
				if seen[s] {
					continue
				}
				seen[s] = true
				p := at
				p.Question, p.Answer = fmt.Sprintf("What did the user require at %s?", at.Ref()), s
				add(&p)
			}
		}
		for _, st := range steps {
			calls := map[string]*cairn.Block{}
			for _, b := range st.Blocks {
				if b.Sidechain {
					continue
				}
				at := Probe{Round: r.Seq, Step: st.Seq}
				switch b.Kind {
				case cairn.AssistantText:
					for _, s := range sentences(b.Content, decisionWords()) {
						if narration().MatchString(s) {
							continue
						}
						p := at
						p.Category, p.Question, p.Answer = Decision, fmt.Sprintf("What was decided or concluded at %s?", at.Ref()), s
						add(&p)
					}
					if a := clip(b.Content, answerLen); len([]rune(a)) >= minAnswer {
						p := at
						p.Category, p.Question, p.Answer = Continuation, "What did the agent answer last?", a
						last = &p
					}
				case cairn.ToolUse:
					calls[b.ToolID] = b
					arg := cairn.ToolArg(b.ToolName, b.Content)
					switch {
					case len(cairn.FileWrites(s.Agent, b.ToolName, b.Content)) > 0:
						for _, w := range cairn.FileWrites(s.Agent, b.ToolName, b.Content) {
							p := at
							p.Question = fmt.Sprintf("Which file did %s change with %s?", at.Ref(), b.ToolName)
							if w.Deleted {
								p.Question = fmt.Sprintf("Which file did %s delete or move away?", at.Ref())
							}
							artifact(&p, w.Path)
						}
					case b.ToolName == "TodoWrite":
						if items := todoContents(b.Content); len(items) > 0 {
							p := at
							todos, todoItems = &p, items
						}
					case b.ToolName == "Bash":
						full := fullArg(b.Content, "command")
						for _, gone := range removedPaths(full) {
							p := at
							p.Question = fmt.Sprintf("Which file did %s delete or move away?", at.Ref())
							artifact(&p, gone)
						}
						cmd := clip(full, answerLen)
						if cmd == "" || commands[cmd] {
							continue
						}
						commands[cmd] = true
						p := at
						p.Category, p.Question, p.Answer = Command, fmt.Sprintf("What command ran at %s (%s)?", at.Ref(), arg), cmd
						add(&p)
					}
				case cairn.ToolResult:
					call := calls[b.ToolID]
					if b.IsError {
						if line := errorLine(b.Content); line != "" {
							p := at
							p.Category, p.Question, p.Answer = Error, fmt.Sprintf("What error did %s meet at %s?", b.ToolName, at.Ref()), line
							add(&p)
						}
						continue
					}
					if call == nil || call.ToolName != "Bash" {
						continue
					}
					for _, f := range figures(b.Content, 2) {
						p := at
						p.Category, p.Question, p.Answer = Number, fmt.Sprintf("What figure did `%s` report at %s?", cairn.ToolArg("Bash", call.Content), at.Ref()), f
						out = append(out, &p)
					}
				}
			}
		}
	}
	if todos != nil {
		for i, item := range todoItems {
			p := *todos
			p.Category, p.Question, p.Answer = Continuation, fmt.Sprintf("What is item %d of the agent's last todo list (%s)?", i+1, todos.Ref()), item
			add(&p)
		}
	}
	if last != nil {
		out = append(out, last)
	}
	return out
}

// errorLine is what an error probe asks for, clipped: the first line of a
// tool's error, or, when that line only gives the exit code (or says that
// a sibling call failed), the first line after it that reads as an error
// ("error", "failed", "cannot", …), else the first line after it at all;
// "" when there is none.
func errorLine(content string) string {
	var rest []string
	first := true
	for _, line := range strings.Split(content, "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		trivial := trivialError().MatchString(line)
		if first && !trivial {
			return clip(line, answerLen)
		}
		first = false
		if !trivial {
			rest = append(rest, line)
		}
	}
	for _, line := range rest {
		if errorWords().MatchString(line) {
			return clip(line, answerLen)
		}
	}
	if len(rest) > 0 {
		return clip(rest[0], answerLen)
	}
	return ""
}

// todoContents returns the content of each item of a TodoWrite call's
// list, clipped.
func todoContents(input string) []string {
	var in struct {
		Todos []struct {
			Content string `json:"content"`
		} `json:"todos"`
	}
	if json.Unmarshal([]byte(input), &in) != nil {
		return nil
	}
	var out []string
	for _, t := range in.Todos {
		if c := clip(t.Content, answerLen); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// removedPaths returns the paths a shell command deletes or moves away:
// the operands of `rm` and `git rm`, the sources of `mv` and `git mv`.
// Operands with globs, variables or substitutions name no one path and
// are skipped.
func removedPaths(cmd string) []string {
	var out []string
	for _, seg := range strings.FieldsFunc(cmd, func(r rune) bool { return r == ';' || r == '&' || r == '|' || r == '\n' }) {
		f := strings.Fields(seg)
		for len(f) > 0 && (f[0] == "sudo" || strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-")) {
			f = f[1:]
		}
		if len(f) > 1 && f[0] == "git" {
			f = f[1:]
		}
		if len(f) < 2 {
			continue
		}
		var args []string
		switch f[0] {
		case "rm":
			args = f[1:]
		case "mv":
			args = f[1 : len(f)-1]
		default:
			continue
		}
		for _, a := range args {
			a = strings.Trim(a, `'"`)
			if a == "" || strings.HasPrefix(a, "-") || strings.ContainsAny(a, "*?$`{}()<>[]") || a == "/dev/null" {
				continue
			}
			out = append(out, a)
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

// worked returns rounds without a round 0 that holds no work.
func worked(rounds []*cairn.Round) []*cairn.Round {
	if len(rounds) > 0 && !surgery.Worked(rounds[0]) {
		return rounds[1:]
	}
	return rounds
}
